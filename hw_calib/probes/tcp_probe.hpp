// tcp: kernel TCP cost and latency, against a peer running `dpusim-calib serve` (--peer) or over
// loopback with an in-process server thread.
//  - send and receive: one thread streams 128 KiB writes (reads) for a while; every 50 ms the bytes and
//    the thread's CPU time (getrusage RUSAGE_THREAD) are sampled, and a straight line fitted to CPU time
//    against bytes gives the CPU-seconds per byte, i.e. the throughput one core sustains
//    (<role>.tcp_tx_rate_per_core / tcp_rx_rate_per_core). /proc/stat adds the system-wide CPU time,
//    including softirq work on other cores.
//  - write-size sweep (4 KiB .. 256 KiB): per-write CPU cost fitted with alpha-beta (size -> efficiency).
//  - request/response: 64-byte ping-pong with TCP_NODELAY; half the round trip is the one-way latency
//    (p50, p99, p99.9 and a lognormal fit), plus an alpha-beta fit of latency over message sizes.
// Over loopback both ends share the machine: the sender's system time includes part of the receive path.
#pragma once

#include "hw_calib/probes/probe.hpp"

namespace dpusim::calib {

ProbeResult run_tcp_probe(const ProbeContext& ctx);

} // namespace dpusim::calib
