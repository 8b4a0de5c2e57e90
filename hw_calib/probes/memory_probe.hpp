// memory: single-thread memcpy bandwidth over buffer sizes from cache-resident to well beyond the last
// level cache; the largest size gives <role>.memcpy_bandwidth. (With a GPU, the `gpu` probe adds
// host<->device copies and GEMM throughput; `run` schedules it after this one.)
#pragma once

#include "hw_calib/probes/probe.hpp"

namespace dpusim::calib {

ProbeResult run_memory_probe(const ProbeContext& ctx);

} // namespace dpusim::calib
