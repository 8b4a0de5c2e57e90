// gpu: host<->device copy bandwidth (pinned memory) and achieved bf16 GEMM throughput over sizes, measured
// by the CUDA helper dpusim-calib-gpu (hw_calib/gpu/, built only when the CUDA toolkit is found), whose CSV
// output is parsed here; --gpu-csv FILE parses a recorded run instead. Skipped without a GPU or helper.
#pragma once

#include "hw_calib/probes/probe.hpp"

namespace dpusim::calib {

ProbeResult run_gpu_probe(const ProbeContext& ctx);

} // namespace dpusim::calib
