#include "hw_calib/discover/core_clock.hpp"

#include <algorithm>
#include <cstdint>

namespace dpusim::calib {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kAddsPerIteration = 200;

#if defined(__x86_64__) || defined(__aarch64__)
// kAddsPerIteration dependent additions per iteration; the loop counter runs in parallel on other ports.
[[gnu::noinline]] std::uint64_t add_chain(std::uint64_t iterations) {
  // Register-register additions: recent x86 cores eliminate small-immediate increments at rename, which
  // would count several additions per cycle.
  std::uint64_t x = 0;
  std::uint64_t one = 1;
  asm volatile("" : "+r"(one));
  for (std::uint64_t i = 0; i < iterations; ++i) {
#if defined(__x86_64__)
    asm volatile(".rept 200\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(one));
#else
    asm volatile(".rept 200\n\tadd %0, %0, %1\n\t.endr" : "+r"(x) : "r"(one));
#endif
  }
  return x;
}
constexpr bool kSupported = true;
#else
std::uint64_t add_chain(std::uint64_t iterations) {
  return iterations;
}
constexpr bool kSupported = false;
#endif

} // namespace

std::optional<CoreClockMeasurement> measure_core_clock(std::chrono::milliseconds duration) {
  if (!kSupported)
    return std::nullopt;
  // Size one repetition to ~1/10 of the budget with a short calibration run (which also wakes the core).
  std::uint64_t iters = 1000;
  double seconds = 0;
  while (true) {
    const auto t0 = Clock::now();
    (void)add_chain(iters);
    seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (seconds > 0.002 || iters > (1ull << 40))
      break;
    iters *= 4;
  }
  const double target = std::max(0.002, std::chrono::duration<double>(duration).count() / 10.0);
  iters =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(iters) * target / seconds));
  CoreClockMeasurement best;
  const auto deadline = Clock::now() + duration;
  do {
    const auto t0 = Clock::now();
    (void)add_chain(iters);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best.hz = std::max(best.hz, static_cast<double>(iters) * kAddsPerIteration / s);
    ++best.repetitions;
  } while (Clock::now() < deadline);
  return best;
}

} // namespace dpusim::calib
