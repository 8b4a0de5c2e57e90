// Monte Carlo for `run` and `compare`: step-level randomness (--samples N: N step draws of one job, its
// ECMP hashes and slow GPUs fixed) and job-level randomness (--launches M: M launches of the job, each
// with its own hashes and slow GPUs), apart or as a grid of M x N; the seeds derive from the scenario's
// (report::sample_seed). Each simulation runs in a process of its own, at most --jobs at once; results
// come back in (variant, launch, sample) order whatever the parallelism, so the files are byte-identical
// for any --jobs.
#pragma once

#include "models/base/atomic_file.hpp"
#include "sim/cli/common.hpp"
#include "sim/report/distribution.hpp"
#include "sim/run/variant_run.hpp"

#include <filesystem>
#include <optional>

namespace dpusim::cli {

/// --samples, --launches and --jobs.
void add_sample_options(po::options_description& options, bool with_jobs);
/// What --samples and --launches ask for (none: a single run); throws po::error where either is outside
/// [1, kMaxSamples] or their product exceeds kMaxSamples.
std::optional<report::Sampling> sampling_requested(const po::variables_map& vm);
/// --jobs, or one per core; throws po::error outside [1, kMaxJobs].
int jobs_requested(const po::variables_map& vm);
/// Simulations at once: each is a process that may hold gigabytes, and more than this many would be
/// more processes than a machine's cores and memory serve.
inline constexpr int kMaxJobs = 1024;

inline constexpr std::size_t kMaxSamples = 100000;

/// Simulates every variant under every launch's job seed and every sample's step seed. Throws
/// std::runtime_error naming the first failed simulation (its exit code in `failed_exit`).
std::vector<report::VariantSamples> run_samples(const scenario::Scenario& s, const catalog::Catalog& cat,
                                                const std::vector<offload::Variant>& variants,
                                                const run::RunOptions& ro, report::Sampling sampling,
                                                int jobs, bool progress, int& failed_exit);

/// Adds samples.csv and distribution.csv to a command's outputs; returns their paths.
std::vector<std::filesystem::path> add_samples(OutputSet& outputs,
                                               const std::vector<report::VariantSamples>& variants);

} // namespace dpusim::cli
