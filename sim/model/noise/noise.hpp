// Variability of GPU work (noise.cpp): the settings a scenario's noise: section gives, and the
// iteration they perturb. Every draw comes from the scenario's seed, so `--samples N` (seeds derived
// from it) gives the step-time distribution. See docs/models/noise.md.
#pragma once

#include "sim/datapath/data_path.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>
#include <string>

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
  [[nodiscard]] bool any() const {
    return gpu_jitter > 0 || (gpu_delay && gpu_delay->mean_s > 0) || (slow_fraction > 0 && slow_speed < 1) ||
           network_tail;
  }
};

/// The iteration with the scenario's noise drawn into its GPU tasks, or nothing when the scenario has
/// none. A tensor-parallel group's kernels run in lockstep: each task takes its slowest GPU's time.
std::optional<plan::IterationPlan> noisy_iteration(const scenario::Scenario& s,
                                                   const plan::IterationPlan& clean,
                                                   const datapath::DataPath& path);

/// Records how much longer the noisy step is than the noise-free one (straggler_wait_s).
void add_straggler_wait(double noisy_step_s, double clean_step_s, report::VariantResult& r);

} // namespace dpusim::model
