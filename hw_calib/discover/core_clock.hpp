// The sustained core clock, measured: a chain of dependent integer additions retires one addition per
// cycle on every x86-64 and Armv8 core dpusim cares about, so additions per second under load is the
// clock the core actually runs at (turbo or throttled), not the nominal one.
#pragma once

#include <chrono>
#include <optional>

namespace dpusim::calib {

struct CoreClockMeasurement {
  double hz = 0;
  int repetitions = 0;
};

/// Runs for about `duration` on the calling thread and returns the best of several repetitions;
/// nullopt on architectures without the measurement loop.
std::optional<CoreClockMeasurement> measure_core_clock(std::chrono::milliseconds duration);

} // namespace dpusim::calib
