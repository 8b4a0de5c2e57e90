// Lognormal fit of latency and jitter samples: maximum likelihood on the logarithms (mu = mean of ln x,
// sigma = their standard deviation with 1/n), and the Kolmogorov-Smirnov statistic D (largest distance
// between the empirical and the fitted CDF) as goodness of fit. D is computed with the parameters fitted
// on the same samples, so the classical KS p-value would be optimistic; D itself is what is recorded.
#pragma once

#include <span>

namespace dpusim::calib {

struct LognormalFit {
  double mu = 0;
  double sigma = 0;
  double ks_statistic = 0;
  int samples = 0;
  [[nodiscard]] double median() const;
  [[nodiscard]] double mean() const;
  [[nodiscard]] double cdf(double x) const;
};

/// Fits the strictly positive samples (others are ignored); throws std::invalid_argument when fewer than
/// 2 positive samples remain.
LognormalFit fit_lognormal(std::span<const double> samples);

} // namespace dpusim::calib
