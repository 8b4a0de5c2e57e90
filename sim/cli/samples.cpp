#include "sim/cli/samples.hpp"

#include "models/base/atomic_file.hpp"
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
                        "simulate N steps of each variant's job: N step draws (kernel jitter, latency tails, "
                        "OS noise, stalls) derived from the scenario's seed, the job's own draw fixed; write "
                        "<out>/samples.csv and <out>/distribution.csv")(
      "launches", po::value<long long>(),
      "simulate M launches of each variant's job: M job draws (each queue pair's ECMP hash, which GPUs run "
      "slow) derived from the scenario's seed (launch 0 is the scenario's own), N steps each with --samples");
  if (with_jobs)
    options.add_options()("jobs,j", po::value<int>(), "simulation processes at once (default: one per core)");
}

std::optional<report::Sampling> sampling_requested(const po::variables_map& vm) {
  if (vm.count("samples") == 0 && vm.count("launches") == 0)
    return std::nullopt;
  const auto count = [&](const char* option) -> std::size_t {
    if (vm.count(option) == 0)
      return 1;
    const long long n = vm[option].as<long long>();
    if (n < 1 || n > static_cast<long long>(kMaxSamples))
      throw po::error(fmt::format("--{} must be between 1 and {}, found {}", option, kMaxSamples, n));
    return static_cast<std::size_t>(n);
  };
  const report::Sampling out{count("launches"), count("samples")};
  if (out.runs() > kMaxSamples)
    throw po::error(fmt::format("--launches {} x --samples {} is {} simulations of each variant; at most {}",
                                out.launches, out.steps, out.runs(), kMaxSamples));
  return out;
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
                                                const run::RunOptions& ro, report::Sampling sampling,
                                                int jobs, bool progress, int& failed_exit) {
  const std::size_t runs = sampling.runs();
  const std::size_t total = variants.size() * runs;
  // Run j: variant j / runs, launch (j % runs) / steps, sample j % steps. Launch 0 keeps the scenario's
  // job seed, sample 0 its step seed; every launch takes the same step draws.
  const auto sample_of = [&](std::size_t j) {
    scenario::Scenario sample = s;
    sample.seed = report::sample_seed(s.seed, (j % runs) / sampling.steps);
    sample.step_seed = report::sample_seed(s.step_draw_seed(), j % sampling.steps);
    return sample;
  };
  const auto start = std::chrono::steady_clock::now();
  std::size_t finished = 0;
  const auto outcomes = run_in_processes(
      total, jobs,
      [&](std::size_t j) {
        auto sample_options = ro;
        sample_options.explain = false; // a sample's notes are not read
        return report::serialize(run::run_variant(sample_of(j), cat, variants[j / runs], sample_options));
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
    report::VariantSamples vs{variants[v].name, sampling, {}};
    for (std::size_t i = 0; i < runs; ++i) {
      const auto& o = outcomes[v * runs + i];
      if (o.exit_code != 0) {
        failed_exit = o.exit_code;
        const auto failed = sample_of(v * runs + i);
        throw std::runtime_error(fmt::format(
            "variant {}, launch {}, sample {} (seed {}, step seed {}) failed: {}", variants[v].name,
            i / sampling.steps, i % sampling.steps, failed.seed, failed.step_draw_seed(), o.describe()));
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
