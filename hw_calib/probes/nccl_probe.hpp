// nccl: all-reduce bus bandwidth over message sizes from nccl-tests' all_reduce_perf, run here when it is
// installed and GPUs are present, or parsed from a recorded run (--nccl-output FILE, e.g. a multi-node
// mpirun log). Gives collective.allreduce_bus_bandwidth and .allreduce_latency, and with --nccl-link-rate
// the efficiency against the link (collective.network_efficiency or .nvlink_efficiency, --nccl-scope).
#pragma once

#include "hw_calib/probes/probe.hpp"

namespace dpusim::calib {

ProbeResult run_nccl_probe(const ProbeContext& ctx);

} // namespace dpusim::calib
