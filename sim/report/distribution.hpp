// Step-time distributions over Monte Carlo samples (`--samples N`: the same scenario under N seeds
// derived from its own, so every seeded choice — ECMP hashes, and any model that draws from the seed —
// varies): per-sample rows, order statistics with a distribution-free confidence interval on p99, and
// the console table with speed-ups at p50 and p99.
#pragma once

#include "sim/report/column.hpp"
#include "sim/report/variant_result.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::report {

/// The seed of sample `i` of a scenario whose seed is `base`: sample 0 is the scenario itself, the
/// others are spread by a fixed hash (splitmix64), so N samples are the first N of one sequence.
std::uint64_t sample_seed(std::uint64_t base, std::size_t i);

struct Distribution {
  std::size_t samples = 0;
  double mean = 0;
  double stdev = 0; // sample standard deviation (0 for one sample)
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
  // 95% confidence interval on p99 from order statistics: the sorted samples at the ranks a
  // Binomial(N, 0.99) count of samples below p99 falls between with probability 0.95 (clamped to the
  // extremes with few samples).
  double p99_low = 0;
  double p99_high = 0;
};

/// Quantile `q` of `sorted` (ascending) by linear interpolation between order statistics.
double quantile(const std::vector<double>& sorted, double q);
Distribution distribution_of(std::vector<double> values);

/// One variant's samples, sample 0 first.
struct VariantSamples {
  std::string variant;
  std::vector<VariantResult> samples;
};

/// samples.csv: the run.csv columns of every variant and sample, preceded by the sample's index;
/// speed-ups are against the baseline's sample of the same seed.
/// `columns` are comparison.csv's model columns, `sample_columns` the model outputs samples.csv adds.
std::string render_samples_csv(const std::vector<VariantSamples>& variants,
                               const std::vector<Column>& columns, const std::vector<Column>& sample_columns);
/// distribution.csv: per variant, the step time's distribution (seconds) and the speed-ups at p50 and p99.
std::string render_distribution_csv(const std::vector<VariantSamples>& variants);
/// The console table: p50, p90, p99 (with its interval) and max of the step, speed-ups at p50 and p99.
std::string render_distribution_table(const std::vector<VariantSamples>& variants);

} // namespace dpusim::report
