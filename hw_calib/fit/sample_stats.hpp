// Order statistics of measured samples (latency percentiles, medians of repeated runs).
#pragma once

#include <span>
#include <vector>

namespace dpusim::calib {

/// The p-th quantile (p in [0, 1]) with linear interpolation between order statistics; the samples need
/// not be sorted. Throws std::invalid_argument on an empty span.
double quantile(std::span<const double> samples, double p);

struct SampleSummary {
  int count = 0;
  double min = 0, p50 = 0, p99 = 0, p999 = 0, max = 0, mean = 0;
};

SampleSummary summarize(std::span<const double> samples);

} // namespace dpusim::calib
