// Points in time on the monotonic clock, given in (fractional) seconds from now.
#pragma once

#include <chrono>

namespace dpusim::calib {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

/// A steady-clock duration of `seconds`.
inline Clock::duration seconds_duration(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

/// Now plus `seconds`.
inline Deadline deadline_in(double seconds) {
  return Clock::now() + seconds_duration(seconds);
}

/// Seconds between two points.
inline double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

} // namespace dpusim::calib
