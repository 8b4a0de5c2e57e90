// Variability (noise.cpp: the section, its checks and explanations; draws.hpp and one file per source:
// the draws; noise_pass.cpp: the draws in a run's passes): the settings a scenario's noise: section
// gives, and the iteration they perturb. Every draw comes from the scenario's seed, so `--samples N` (seeds
// derived from it) gives the step-time distribution. See docs/models/noise.md.
#pragma once

#include "sim/datapath/data_path.hpp"
#include "sim/metrics/iteration_metrics.hpp"
#include "sim/model/noise/os_noise.hpp"
#include "sim/model/pass.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/scenario.hpp"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dpusim::model {

struct NoiseConfig {
  /// Coefficient of variation of each GPU task's time (forward, backward, optimizer) on each GPU
  /// (lognormal with mean 1); 0: none.
  double gpu_jitter = 0;
  /// An extra delay once per micro-batch and GPU, before its forward pass (e.g. a late kernel launch).
  struct Delay {
    std::string distribution = "exponential"; // exponential | lognormal
    double mean_s = 0;
    double sigma = 0; // lognormal: the standard deviation of its logarithm
  };
  std::optional<Delay> gpu_delay;
  /// Persistently slow GPUs (thermal or power throttling): each GPU is slow with probability `fraction`,
  /// drawn once per GPU, and runs at `speed` of the catalog's.
  double slow_fraction = 0;
  double slow_speed = 1;
  /// Draw the software latency of every network step from the transport's lognormal (each step waits
  /// for the slowest of its concurrent hops) instead of charging its expected largest value.
  bool network_tail = false;
  /// Draw detours on host and Arm cores from their calibrated OS noise, grown by the kernel networking
  /// work the variant leaves there: they delay launch threads and the software of network hops.
  bool os_noise = false;
  /// Draw each sample read's latency from the storage's lognormal (its median and 99th percentile) in
  /// place of the median the noise-free iteration charges; the prefetch queue absorbs what it can.
  bool storage_tail = false;
  /// Node-wide stalls (a daemon, a firmware interrupt, memory reclaim holding every core of a node at
  /// once): on each node a Poisson process of mean interval `every_s`, each stall `duration_s` long. They
  /// stop the node's launch threads, loaders and host storage client together; counted as OS noise.
  struct NodeStalls {
    double every_s = 0;
    double duration_s = 0;
  };
  std::optional<NodeStalls> node_stalls;
  [[nodiscard]] bool stalls() const {
    return node_stalls && node_stalls->every_s > 0 && node_stalls->duration_s > 0;
  }
  /// Which data-parallel replicas a noisy iteration simulates: all of them, or the slowest few
  /// (slowest_replicas) standing for the others; auto: all where the plan is small enough to simulate
  /// whole (model::representative_replica's budget), else the slowest.
  enum class Replicas { automatic, all, slowest };
  Replicas replicas = Replicas::automatic;
  [[nodiscard]] bool gpu() const {
    return gpu_jitter > 0 || (gpu_delay && gpu_delay->mean_s > 0) || (slow_fraction > 0 && slow_speed < 1);
  }
  [[nodiscard]] bool any() const { return gpu() || network_tail || os_noise || storage_tail || stalls(); }
};

/// The sources the straggler wait is broken down by.
enum class NoiseSource { gpu, os, network, storage };
inline constexpr std::array<NoiseSource, 4> kNoiseSources{NoiseSource::gpu, NoiseSource::os,
                                                          NoiseSource::network, NoiseSource::storage};
std::string_view noise_source_name(NoiseSource src); // "gpu", "os", "network", "storage"
/// The sources `n` turns on, and `n` with only one of them.
std::vector<NoiseSource> sources_of(const NoiseConfig& n);
NoiseConfig only(const NoiseConfig& n, NoiseSource src);

/// The scenario's noise settings, or nothing when it has no noise: section.
const NoiseConfig* noise_of(const scenario::Scenario& s);

/// Where OS noise reaches this variant, from its hardware (calibrated or catalog OS noise), its data path
/// and the kernel work its noise-free iteration put on host and Arm cores. Nothing unless the scenario
/// turns os_noise on.
std::optional<OsNoise> os_noise_for(const scenario::Scenario& s, const scenario::Hardware& hw,
                                    const datapath::DataPath& path, const metrics::IterationMetrics& clean,
                                    const metrics::MetricsInputs& in, double launch_s_per_kernel);

/// Whether the scenario's noise is simulated on its slowest replicas only (noise.replicas, resolved).
bool slowest_replicas_only(const scenario::Scenario& s);

/// The replicas of a noisy iteration (every replica simulated, after apply_probe) that hold up its
/// synchronous points: at every task no single replica owns (a data-parallel collective, the iteration's
/// end), the `per_point` replicas whose inputs to it finish last by GPU time and delays alone
/// (plan::compute_finish_times); of those, the `cap` whose such points come latest.
std::vector<int> slowest_replicas(const plan::IterationPlan& noisy, int dp, int per_point = 1, int cap = 2);

/// The lognormal sigma of one sample read's latency, ln(p99 / median) / z99, from the hardware's storage
/// read latency; 0 where it has no median and 99th percentile (or they are equal).
double storage_latency_sigma(const scenario::Hardware& hw);

/// The iteration with the scenario's noise drawn into its GPU tasks, or nothing when the scenario has
/// none. A tensor-parallel group's kernels run in lockstep: each task takes its slowest GPU's time.
/// `os` gives where OS noise reaches (required when `n` turns os_noise on); `storage_sigma` the shape of
/// each sample read's latency (storage_latency_sigma), drawn where `n` turns storage_tail on.
std::optional<plan::IterationPlan> noisy_iteration(const NoiseConfig& n, const scenario::Scenario& s,
                                                   const plan::IterationPlan& clean,
                                                   const datapath::DataPath& path, const OsNoise* os,
                                                   double storage_sigma = 0);

/// The scenario's noise as the run's draws (pass.hpp): into the prediction, each source alone, and every
/// pass another model asks for; null where the scenario has no noise: section. `clean` is the
/// prediction's noise-free run (OS noise grows with the kernel work it put on the cores).
std::unique_ptr<Perturbation> noise_perturbation(const RunContext& run,
                                                 const metrics::IterationMetrics& clean,
                                                 const metrics::MetricsInputs& in);

/// Records how much longer the noisy step is than the noise-free one (straggler_wait_s).
void add_straggler_wait(double noisy_step_s, double clean_step_s, report::VariantResult& r);
/// Records the straggler wait of each source (straggler_wait_<source>_s): `alone` holds the step of each
/// source simulated alone; the total wait is shared in proportion to what each costs alone.
void add_straggler_sources(const std::vector<std::pair<NoiseSource, double>>& alone, double clean_step_s,
                           report::VariantResult& r);

} // namespace dpusim::model
