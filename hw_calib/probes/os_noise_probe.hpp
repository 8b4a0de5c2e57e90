// os-noise: the fixed-work-quantum (FWQ) benchmark of the HPC OS-noise literature. One thread pinned to
// each CPU repeats the same small amount of work (default 100 us) and records how long each repetition
// took; the excess over the fastest repetition is time the OS (ticks, interrupts, daemons) took away.
// Gives <role>.os_noise_fraction (mean share of each quantum lost) and <role>.os_noise_p99 (99th
// percentile of the per-quantum detour), with a lognormal fit of the detours.
#pragma once

#include "hw_calib/probes/probe.hpp"

namespace dpusim::calib {

ProbeResult run_os_noise_probe(const ProbeContext& ctx);

} // namespace dpusim::calib
