#include "sim/cli/samples.hpp"

#include "models/core/atomic_file.hpp"
#include "sim/cli/process_pool.hpp"
#include "sim/model/registry.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <iostream>
#include <thread>

namespace dpusim::cli {

void add_sample_options(po::options_description& options, bool with_jobs) {
  options.add_options()("samples", po::value<long long>(),
                        "simulate each variant under N seeds derived from the scenario's (sample 0 is the "
                        "scenario's own) and write <out>/samples.csv and <out>/distribution.csv");
  if (with_jobs)
    options.add_options()("jobs,j", po::value<int>(), "simulation processes at once (default: one per core)");
}

std::optional<std::size_t> samples_requested(const po::variables_map& vm) {
  if (vm.count("samples") == 0)
    return std::nullopt;
  const long long n = vm["samples"].as<long long>();
  if (n < 1 || n > static_cast<long long>(kMaxSamples))
    throw po::error(fmt::format("--samples must be between 1 and {}, found {}", kMaxSamples, n));
  return static_cast<std::size_t>(n);
}

int jobs_requested(const po::variables_map& vm) {
  const int jobs = vm.count("jobs") != 0
                       ? vm["jobs"].as<int>()
                       : std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, kMaxJobs);
  if (jobs < 1 || jobs > kMaxJobs)
    throw po::error(fmt::format("--jobs must be between 1 and {}, found {}", kMaxJobs, jobs));
  return jobs;
}

std::vector<report::VariantSamples> run_samples(const scenario::Scenario& s, const catalog::Catalog& cat,
                                                const std::vector<offload::Variant>& variants,
                                                const run::RunOptions& ro, std::size_t samples, int jobs,
                                                bool progress, int& failed_exit) {
  const std::size_t total = variants.size() * samples;
  const auto start = std::chrono::steady_clock::now();
  std::size_t finished = 0;
  const auto outcomes = run_in_processes(
      total, jobs,
      [&](std::size_t j) {
        scenario::Scenario sample = s;
        auto sample_options = ro;
        sample_options.explain = false; // a sample's notes are not read
        sample.seed = report::sample_seed(s.seed, j % samples);
        return report::serialize(run::run_variant(sample, cat, variants[j / samples], sample_options));
      },
      [&](std::size_t, const JobOutcome&) {
        ++finished;
        if (!progress)
          return;
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double eta = elapsed / static_cast<double>(finished) * static_cast<double>(total - finished);
        std::cerr << fmt::format("\r[{}/{}] samples, {:.0f} s elapsed, about {:.0f} s left", finished, total,
                                 elapsed, eta)
                  << (finished == total ? "\n" : "") << std::flush;
      });
  std::vector<report::VariantSamples> out;
  for (std::size_t v = 0; v < variants.size(); ++v) {
    report::VariantSamples vs{variants[v].name, {}};
    for (std::size_t i = 0; i < samples; ++i) {
      const auto& o = outcomes[v * samples + i];
      if (o.exit_code != 0) {
        failed_exit = o.exit_code;
        throw std::runtime_error(fmt::format("variant {}, sample {} (seed {}) failed: {}", variants[v].name,
                                             i, report::sample_seed(s.seed, i), o.describe()));
      }
      vs.samples.push_back(report::deserialize(o.output));
    }
    out.push_back(std::move(vs));
  }
  return out;
}

std::vector<std::filesystem::path> add_samples(OutputSet& outputs,
                                               const std::vector<report::VariantSamples>& variants) {
  return {outputs.add("samples.csv", report::render_samples_csv(variants, model::registry().columns(),
                                                                model::registry().sample_columns())),
          outputs.add("distribution.csv", report::render_distribution_csv(variants))};
}

} // namespace dpusim::cli
