// Step-time distributions over Monte Carlo draws, two kinds kept apart: the steps of one job
// (`--samples N`: N step seeds, the job's seed fixed, so its ECMP hashes and slow GPUs stay) and the
// launches of a job (`--launches M`: M job seeds, each launch's typical step its mean over its steps).
// Per-run rows, order statistics with a distribution-free confidence interval on p99, and the console
// tables with speed-ups at p50 and p99.
#pragma once

#include "sim/report/column.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/scenario.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::report {

/// The seed of draw `i` from a scenario's seed `base` (a launch's job seed, a sample's step seed): draw 0
/// is the scenario itself, the others are spread by a fixed hash (splitmix64), so N draws are the first N
/// of one sequence.
std::uint64_t sample_seed(std::uint64_t base, std::size_t i);

/// Runs of each variant: `launches` job draws, `steps` step draws of each.
struct Sampling {
  std::size_t launches = 1;
  std::size_t steps = 1;
  [[nodiscard]] std::size_t runs() const { return launches * steps; }
};

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

/// What a sampled run drew, for its header and its inputs: "20 steps of the job of seed 1 (step draws from
/// seed 1)", "5 launches from seed 1, 20 steps each".
std::string sampling_text(const scenario::Scenario& s, Sampling sampling);

/// One variant's runs, launch by launch (`sampling.steps` samples each), launch 0's sample 0 first.
struct VariantSamples {
  std::string variant;
  Sampling sampling;
  std::vector<VariantResult> samples;
  /// Step times of launch `l`'s samples.
  [[nodiscard]] std::vector<double> steps_of(std::size_t launch) const;
  /// Each launch's mean step over its samples.
  [[nodiscard]] std::vector<double> launch_means() const;
};

/// samples.csv: the run.csv columns of every variant and run (whose `seed` is the launch's job seed),
/// preceded by the launch's and the sample's index and the step seed; speed-ups are against the
/// baseline's run of the same seeds.
/// `columns` are comparison.csv's model columns, `sample_columns` the model outputs samples.csv adds.
std::string render_samples_csv(const std::vector<VariantSamples>& variants,
                               const std::vector<Column>& columns, const std::vector<Column>& sample_columns);
/// distribution.csv: per variant, the distributions of the step time (seconds) and the speed-ups at p50 and
/// p99 against the baseline's same distribution: `over` = steps, one row per launch, over its samples
/// (with more than one sample); `over` = launches, over the launches' mean steps (with more than one
/// launch; `launch` empty).
std::string render_distribution_csv(const std::vector<VariantSamples>& variants);
/// The console tables: p50, p90, p99 (with its interval) and max, speed-ups at p50 and p99, of the steps of
/// launch 0 (with samples) and of the launches' mean steps (with launches).
std::string render_distribution_table(const std::vector<VariantSamples>& variants);

} // namespace dpusim::report
