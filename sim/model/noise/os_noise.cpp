// The detour distribution of host OS noise. Calibrated on an idle core as (fraction lost, 99th
// percentile of the detour per quantum); a variant's interrupt and softirq work on the same cores
// (kernel TCP, the OVS datapath, kernel IPsec/kTLS, the storage client) adds to the time lost.
#include "sim/model/noise/os_noise.hpp"

#include "models/calibration/parameters.hpp"

#include <algorithm>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <cmath>

namespace dpusim::model {
namespace {

constexpr double kMaxFraction = 0.9;
constexpr int kExactQuanta = 64; // beyond: the sum of the quanta's detours by its normal limit

} // namespace

double lognormal_sigma_for(double mean, double p99) {
  if (!(mean > 0) || !(p99 > 0))
    return 0;
  const double r = std::log(p99 / mean);
  const double disc = kZ99 * kZ99 - 2 * r;
  if (disc <= 0)
    return kZ99;
  // Below the mean, the 99th percentile needs the heavy root: most of the mean sits beyond it.
  return r < 0 ? kZ99 + std::sqrt(disc) : kZ99 - std::sqrt(disc);
}

Detours::Detours(double fraction, double p99_s, double load) {
  const double q = calibration::kOsNoiseQuantumS;
  const double f0 = std::clamp(fraction, 0.0, kMaxFraction);
  fraction_ = std::clamp(f0 + std::max(0.0, load), 0.0, kMaxFraction);
  if (fraction_ <= 0)
    return;
  // A share f of the time lost: q of work takes q / (1 - f), of which q f / (1 - f) is detour.
  mean_s_ = q * fraction_ / (1 - fraction_);
  // The shape comes from the idle core's pair (the noise model requires a fraction above 0 to have one).
  const double idle_mean = q * f0 / (1 - f0);
  sigma_ = idle_mean > 0 ? lognormal_sigma_for(idle_mean, p99_s) : 0.0;
  mu_ = std::log(mean_s_) - sigma_ * sigma_ / 2;
}

double Detours::over(double work_s, boost::random::mt19937_64& rng) const {
  if (!any() || !(work_s > 0))
    return 0;
  const double quanta = work_s / calibration::kOsNoiseQuantumS;
  const double whole = std::floor(quanta);
  double total = 0;
  boost::random::lognormal_distribution<double> d(mu_, sigma_);
  if (whole > kExactQuanta) {
    // Sum of `whole` i.i.d. lognormals: mean n m, variance n m^2 (e^{sigma^2} - 1).
    const double sd = mean_s_ * std::sqrt(whole * std::expm1(sigma_ * sigma_));
    boost::random::normal_distribution<double> n(whole * mean_s_, sd);
    total = std::max(0.0, n(rng));
  } else {
    for (int k = 0; k < static_cast<int>(whole); ++k)
      total += d(rng);
  }
  boost::random::uniform_01<double> u;
  if (const double part = quanta - whole; part > 0 && u(rng) < part)
    total += d(rng);
  return total;
}

} // namespace dpusim::model
