#include "sim/report/distribution.hpp"

#include "sim/report/comparison.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace dpusim::report {

std::uint64_t sample_seed(std::uint64_t base, std::size_t i) {
  if (i == 0)
    return base;
  // splitmix64 of (base, i): a fixed, portable sequence.
  std::uint64_t x = base + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(i);
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  x ^= x >> 31U;
  // Seeds are read back from YAML and CSV as signed 64-bit integers: keep them below 2^63.
  return x >> 1U;
}

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty())
    throw std::logic_error("quantile of no values");
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Distribution distribution_of(std::vector<double> values) {
  Distribution d;
  if (values.empty())
    return d;
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  d.samples = n;
  // Sums of differences from the smallest value: equal samples give exactly that value and no spread.
  const double first = values.front();
  double shift = 0;
  for (double v : values)
    shift += v - first;
  d.mean = first + shift / static_cast<double>(n);
  if (n > 1) {
    double ss = 0;
    for (double v : values)
      ss += (v - first) * (v - first);
    const double mean_shift = shift / static_cast<double>(n);
    d.stdev = std::sqrt(
        std::max(0.0, (ss - static_cast<double>(n) * mean_shift * mean_shift) / static_cast<double>(n - 1)));
  }
  d.p50 = quantile(values, 0.50);
  d.p90 = quantile(values, 0.90);
  d.p99 = quantile(values, 0.99);
  d.max = values.back();
  // B, the number of samples at or below the true p99, is Binomial(n, 0.99), and x(r) <= p99 < x(s)
  // exactly when r <= B < s: with l the largest count whose cumulative probability is at most 2.5% and
  // u the smallest at least 97.5%, ranks l + 1 and u + 1 bracket p99 with probability at least 0.95.
  const boost::math::binomial_distribution<double> below(static_cast<double>(n), 0.99);
  const double l = boost::math::quantile(below, 0.025);
  const double u = boost::math::quantile(boost::math::complement(below, 0.025));
  auto at_rank = [&](double rank) { // 1-based, clamped to the sample
    const auto r = static_cast<std::size_t>(std::clamp(rank, 1.0, static_cast<double>(n)));
    return values[r - 1];
  };
  d.p99_low = at_rank(std::floor(l) + 1);
  d.p99_high = at_rank(std::ceil(u) + 1);
  return d;
}

std::string sampling_text(const scenario::Scenario& s, Sampling sampling) {
  const auto steps = fmt::format("{} step{} (step draws from seed {})", sampling.steps,
                                 sampling.steps == 1 ? "" : "s", s.step_draw_seed());
  if (sampling.launches == 1)
    return fmt::format("{} of the job of seed {}", steps, s.seed);
  return fmt::format("{} launches (job draws from seed {}), {} each", sampling.launches, s.seed, steps);
}

std::vector<double> VariantSamples::steps_of(std::size_t launch) const {
  std::vector<double> out;
  for (std::size_t i = 0; i < sampling.steps; ++i)
    out.push_back(samples.at(launch * sampling.steps + i).metrics.step_time_s);
  return out;
}

std::vector<double> VariantSamples::launch_means() const {
  std::vector<double> out;
  for (std::size_t l = 0; l < sampling.launches; ++l) {
    const auto steps = steps_of(l);
    out.push_back(distribution_of(steps).mean);
  }
  return out;
}

namespace {

struct Row {
  std::string variant;
  std::string over;   // "steps" or "launches"
  std::string launch; // the launch's index for steps, empty for launches
  Distribution d;
  double speedup_p50 = 0;
  double speedup_p99 = 0;
};

/// The rows of one kind for every variant, speed-ups against the baseline's row of the same kind.
std::vector<Row> rows_of(const std::vector<VariantSamples>& variants, const std::string& over,
                         std::size_t launch) {
  std::vector<Row> out;
  for (const auto& v : variants) {
    const bool steps = over == "steps";
    out.push_back({v.variant, over, steps ? std::to_string(launch) : std::string(),
                   distribution_of(steps ? v.steps_of(launch) : v.launch_means()), 0, 0});
  }
  for (auto& r : out) {
    r.speedup_p50 = r.d.p50 > 0 ? out.front().d.p50 / r.d.p50 : 0;
    r.speedup_p99 = r.d.p99 > 0 ? out.front().d.p99 / r.d.p99 : 0;
  }
  return out;
}

Sampling sampling_of(const std::vector<VariantSamples>& variants) {
  return variants.empty() ? Sampling{} : variants.front().sampling;
}

std::string table(const std::vector<Row>& rows, const std::string& count) {
  std::size_t width = 7;
  for (const auto& r : rows)
    width = std::max(width, r.variant.size());
  std::string out = fmt::format("{:<{}}  {:>8}  {:>8}  {:>8}  {:>8}  {:>19}  {:>8}  {:>11}  {:>11}\n",
                                "variant", width, count, "p50 s", "p90 s", "p99 s", "p99 95% interval",
                                "max s", "speed-up p50", "speed-up p99");
  for (const auto& r : rows) {
    const auto& d = r.d;
    out +=
        fmt::format("{:<{}}  {:>8}  {:>8.4f}  {:>8.4f}  {:>8.4f}  {:>19}  {:>8.4f}  {:>11.3f}x  {:>11.3f}x\n",
                    r.variant, width, d.samples, d.p50, d.p90, d.p99,
                    fmt::format("{:.4f}-{:.4f}", d.p99_low, d.p99_high), d.max, r.speedup_p50, r.speedup_p99);
  }
  return out;
}

} // namespace

std::string render_samples_csv(const std::vector<VariantSamples>& variants,
                               const std::vector<Column>& columns,
                               const std::vector<Column>& sample_columns) {
  std::string out;
  const std::size_t n = variants.empty() ? 0 : variants.front().samples.size();
  const std::size_t steps = sampling_of(variants).steps;
  for (std::size_t i = 0; i < n; ++i) {
    Comparison c{variants.front().variant, {}, {}};
    for (const auto& v : variants)
      c.results.push_back(v.samples.at(i));
    const std::string csv = render_csv(c, columns);
    std::size_t line_start = 0;
    std::size_t row = 0;
    bool header = true;
    while (line_start < csv.size()) {
      const std::size_t end = csv.find('\n', line_start);
      const std::string line = csv.substr(line_start, end - line_start);
      line_start = end == std::string::npos ? csv.size() : end + 1;
      if (header) {
        header = false;
        if (i == 0) {
          out += "launch,sample,step_seed," + line;
          for (const auto& col : sample_columns)
            out += "," + col.name;
          out += "\n";
        }
        continue;
      }
      const auto& r = c.results.at(row++);
      out += fmt::format("{},{},{},{}", i / steps, i % steps, r.step_seed, line);
      for (const auto& col : sample_columns)
        out += fmt::format(",{:.9g}", col.value(r));
      out += "\n";
    }
  }
  return out;
}

std::string render_distribution_csv(const std::vector<VariantSamples>& variants) {
  std::string out = "variant,over,launch,count,mean_step_s,stdev_step_s,p50_step_s,p90_step_s,p99_step_s,"
                    "p99_ci_low_s,p99_ci_high_s,max_step_s,speedup_p50,speedup_p99\n";
  const auto sampling = sampling_of(variants);
  // Each kind's rows (one per variant, in the variants' order), then written variant by variant.
  std::vector<std::vector<Row>> kinds;
  // One run of one launch is still a (degenerate) distribution of steps.
  const bool steps = sampling.steps > 1 || sampling.launches == 1;
  for (std::size_t l = 0; steps && l < sampling.launches; ++l)
    kinds.push_back(rows_of(variants, "steps", l));
  if (sampling.launches > 1)
    kinds.push_back(rows_of(variants, "launches", 0));
  std::vector<Row> all;
  for (std::size_t v = 0; v < variants.size(); ++v)
    for (const auto& kind : kinds)
      all.push_back(kind[v]);
  for (const auto& r : all) {
    const auto& d = r.d;
    out += fmt::format("{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},{:.6g}\n",
                       r.variant, r.over, r.launch, d.samples, d.mean, d.stdev, d.p50, d.p90, d.p99,
                       d.p99_low, d.p99_high, d.max, r.speedup_p50, r.speedup_p99);
  }
  return out;
}

std::string render_distribution_table(const std::vector<VariantSamples>& variants) {
  const auto sampling = sampling_of(variants);
  std::string out;
  if (sampling.steps > 1 || sampling.launches == 1) {
    out += fmt::format("steps of {} (step draws: jitter, tails, OS noise, stalls; its ECMP hashes and slow "
                       "GPUs fixed){}:\n",
                       sampling.launches > 1 ? "launch 0, the scenario's own job" : "the scenario's job",
                       sampling.launches > 1 ? "; every launch's in distribution.csv" : "");
    out += table(rows_of(variants, "steps", 0), "samples");
  }
  if (sampling.launches > 1) {
    out += fmt::format("{}launches of the job (job draws: each queue pair's ECMP hash, which GPUs run slow), "
                       "each its {}:\n",
                       out.empty() ? "" : "\n",
                       sampling.steps > 1 ? fmt::format("mean step over {} samples", sampling.steps)
                                          : std::string("step at the scenario's step draw"));
    out += table(rows_of(variants, "launches", 0), "launches");
  }
  // Slow nodes: the step's distribution with them against the same iterations without them.
  for (const auto& v : variants) {
    std::vector<double> with;
    std::vector<double> without;
    for (const auto& r : v.samples)
      if (r.value("fault_free_step_s") > 0) {
        with.push_back(r.metrics.step_time_s);
        without.push_back(r.metrics.step_time_s - r.value("fault_cost_s"));
      }
    if (without.size() != v.samples.size() || without.empty())
      continue;
    const auto a = distribution_of(with);
    const auto b = distribution_of(without);
    out += fmt::format("{}: the slow nodes cost {:.4f} s at p50 ({:.4f} vs {:.4f} s) and {:.4f} s at p99 "
                       "({:.4f} vs {:.4f} s) over its {} runs\n",
                       v.variant, a.p50 - b.p50, a.p50, b.p50, a.p99 - b.p99, a.p99, b.p99, v.samples.size());
  }
  return out;
}

} // namespace dpusim::report
