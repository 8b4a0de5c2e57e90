#include "hw_calib/fit/sample_stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dpusim::calib {
namespace {

double sorted_quantile(const std::vector<double>& sorted, double p) {
  const double pos = std::clamp(p, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

} // namespace

double quantile(std::span<const double> samples, double p) {
  if (samples.empty())
    throw std::invalid_argument("quantile of no samples");
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted_quantile(sorted, p);
}

SampleSummary summarize(std::span<const double> samples) {
  if (samples.empty())
    throw std::invalid_argument("summary of no samples");
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  SampleSummary s;
  s.count = static_cast<int>(sorted.size());
  s.min = sorted.front();
  s.max = sorted.back();
  s.p50 = sorted_quantile(sorted, 0.5);
  s.p99 = sorted_quantile(sorted, 0.99);
  s.p999 = sorted_quantile(sorted, 0.999);
  double sum = 0;
  for (double v : sorted)
    sum += v;
  s.mean = sum / static_cast<double>(sorted.size());
  return s;
}

} // namespace dpusim::calib
