// Monte Carlo over seeds for `run` and `compare` (--samples N): every variant under N seeds derived
// from the scenario's (report::sample_seed), each simulation in a process of its own, at most --jobs
// at once; results come back in (variant, sample) order whatever the parallelism, so the files are
// byte-identical for any --jobs.
#pragma once

#include "models/core/atomic_file.hpp"
#include "sim/cli/common.hpp"
#include "sim/report/distribution.hpp"
#include "sim/run/variant_run.hpp"

#include <filesystem>
#include <optional>

namespace dpusim::cli {

/// --samples and --jobs.
void add_sample_options(po::options_description& options, bool with_jobs);
/// The number of samples asked for (none: a single run); throws po::error outside [1, kMaxSamples].
std::optional<std::size_t> samples_requested(const po::variables_map& vm);
/// --jobs, or one per core; throws po::error outside [1, kMaxJobs].
int jobs_requested(const po::variables_map& vm);
/// Simulations at once: each is a process that may hold gigabytes, and more than this many would be
/// more processes than a machine's cores and memory serve.
inline constexpr int kMaxJobs = 1024;

inline constexpr std::size_t kMaxSamples = 100000;

/// Simulates every variant under every sample's seed. Throws std::runtime_error naming the first
/// failed simulation (its exit code in `failed_exit`).
std::vector<report::VariantSamples> run_samples(const scenario::Scenario& s, const catalog::Catalog& cat,
                                                const std::vector<offload::Variant>& variants,
                                                const run::RunOptions& ro, std::size_t samples, int jobs,
                                                bool progress, int& failed_exit);

/// Adds samples.csv and distribution.csv to a command's outputs; returns their paths.
std::vector<std::filesystem::path> add_samples(OutputSet& outputs,
                                               const std::vector<report::VariantSamples>& variants);

} // namespace dpusim::cli
