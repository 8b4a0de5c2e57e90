#include "hw_calib/fit/lognormal_fit.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>
#include <vector>

namespace dpusim::calib {

double LognormalFit::median() const {
  return std::exp(mu);
}

double LognormalFit::mean() const {
  return std::exp(mu + 0.5 * sigma * sigma);
}

double LognormalFit::cdf(double x) const {
  if (x <= 0)
    return 0.0;
  if (sigma <= 0)
    return std::log(x) >= mu ? 1.0 : 0.0;
  return 0.5 * std::erfc(-(std::log(x) - mu) / (sigma * std::sqrt(2.0)));
}

LognormalFit fit_lognormal(std::span<const double> samples) {
  std::vector<double> logs;
  logs.reserve(samples.size());
  for (double v : samples) {
    if (v > 0 && std::isfinite(v))
      logs.push_back(std::log(v));
  }
  if (logs.size() < 2)
    throw std::invalid_argument(
        fmt::format("lognormal fit: needs at least 2 positive samples, got {}", logs.size()));
  const Eigen::Map<const Eigen::ArrayXd> l(logs.data(), static_cast<Eigen::Index>(logs.size()));
  LognormalFit fit;
  fit.samples = static_cast<int>(logs.size());
  fit.mu = l.mean();
  fit.sigma = std::sqrt((l - fit.mu).square().mean());
  // KS statistic: compare sorted samples with the fitted CDF on both sides of each step.
  std::sort(logs.begin(), logs.end());
  const double n = static_cast<double>(logs.size());
  double d = 0;
  for (std::size_t i = 0; i < logs.size(); ++i) {
    const double f = fit.cdf(std::exp(logs[i]));
    d = std::max({d, static_cast<double>(i + 1) / n - f, f - static_cast<double>(i) / n});
  }
  fit.ks_statistic = d;
  return fit;
}

} // namespace dpusim::calib
