// rdma: RDMA write and send bandwidth and latency over message sizes, by running perftest
// (ib_write_bw, ib_write_lat, ib_send_bw, ib_send_lat with -a: 2 B .. 8 MiB) and parsing its tables.
// Against --peer the peer's `dpusim-calib serve` starts the perftest server; otherwise the server runs
// here and the test goes through the local NIC. Skipped, with the reason in the profile's notes, when
// there is no RDMA device or perftest is not installed.
#pragma once

#include "hw_calib/probes/probe.hpp"

namespace dpusim::calib {

ProbeResult run_rdma_probe(const ProbeContext& ctx);

} // namespace dpusim::calib
