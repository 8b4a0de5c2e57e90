// Host OS noise (os_noise.cpp): detours on host cores and on a DPU's Arm cores, drawn per work quantum
// from the calibrated mean fraction and 99th percentile, and grown by the kernel networking work the
// variant leaves on those cores. See docs/models/noise.md.
#pragma once

#include <boost/random/mersenne_twister.hpp>

namespace dpusim::model {

inline constexpr double kZ99 = 2.3263478740408408; // standard normal quantile at 0.99

/// The detour a thread suffers in one quantum of work (calibration::kOsNoiseQuantumS): lognormal, its
/// mean set by the fraction of time lost and its shape by the measured 99th percentile.
class Detours {
public:
  Detours() = default;
  /// `fraction`: share of time lost to detours on an idle core; `p99_s`: the 99th percentile of the
  /// detour per quantum there; `load`: the share of the core's time the variant's kernel work adds
  /// (interrupts, softirqs), which raises the share lost to `fraction + load` with the same shape.
  Detours(double fraction, double p99_s, double load);
  /// Detours over `work_s` of work on one core: a draw per whole quantum, and for the part of a quantum
  /// left, the quantum's detour when it falls into that part (with probability its share of the quantum).
  [[nodiscard]] double over(double work_s, boost::random::mt19937_64& rng) const;
  [[nodiscard]] double fraction() const { return fraction_; }
  [[nodiscard]] double mean_per_quantum_s() const { return mean_s_; }
  [[nodiscard]] double sigma() const { return sigma_; }
  [[nodiscard]] bool any() const { return mean_s_ > 0; }

private:
  double fraction_ = 0;
  double mean_s_ = 0;
  double mu_ = 0;
  double sigma_ = 0;
};

/// The lognormal shape whose mean is `mean` and 99th percentile `p99`: sigma solves
/// ln(p99 / mean) = z99 sigma - sigma^2 / 2, taking the lighter-tailed root where there are two, and the
/// heaviest shape the pair allows (sigma = z99) where the percentile is more than e^(z99^2 / 2) ~ 15x
/// the mean.
double lognormal_sigma_for(double mean, double p99);

/// Where OS noise reaches a variant's critical path: the launch threads of every GPU (host cores), the
/// software of every network hop's two ends (kernel TCP on host cores, forwarding on Arm cores), the
/// loaders' decoding (host cores) and the storage client's threads (host cores, or SNAP's on Arm cores).
struct OsNoise {
  Detours host;
  Detours arm;
  double launch_s_per_kernel = 0; // host CPU time of one kernel launch
  double host_hop_s = 0;          // host software per hop end (kernel TCP's one-way latency), 0: none
  double arm_hop_s = 0;           // Arm software per hop end (forwarding through the Arm cores), 0: none
  double host_load = 0;           // the share of each host core the variant's kernel work takes
  double arm_load = 0;            // ... of each Arm core
};

} // namespace dpusim::model
