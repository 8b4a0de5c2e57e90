// The noise drawn into a run's passes (pass.hpp's Perturbation): the prediction, each source alone to
// share the straggler wait, and every pass another model asked for, all with the same draws.
#include "sim/model/noise/noise.hpp"
#include "sim/model/pass.hpp"
#include "sim/plan/replica_subset.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dpusim::model {
namespace {

class NoisePerturbation final : public Perturbation {
public:
  NoisePerturbation(const NoiseConfig& n, const RunContext& run, std::optional<OsNoise> os,
                    const metrics::MetricsInputs& in)
      : noise_(n), scenario_(run.scenario), path_(run.path), os_(std::move(os)),
        storage_sigma_(storage_latency_sigma(run.hardware)), in_(in),
        slowest_(slowest_replicas_only(run.scenario)) {}

  /// With slowest_replicas_only, every replica's tasks get the draws and only the replicas that reach the
  /// synchronous points last are kept.
  std::optional<plan::IterationPlan> draw(const plan::IterationPlan& clean, const plan::IterationPlan* whole,
                                          std::string_view pass, std::string_view part) override {
    const auto n = part.empty() ? noise_ : only(noise_, source_named(part));
    auto drawn =
        noisy_iteration(n, scenario_, whole ? *whole : clean, path_, os_ ? &*os_ : nullptr, storage_sigma_);
    if (!drawn || !slowest_)
      return drawn;
    const int dp = scenario_.workload.parallelism.dp;
    drawn->apply_probe(in_.tp_collective_s, in_.ep_collective_s, in_.cp_collective_s);
    const auto chosen = slowest_replicas(*drawn, dp);
    if (pass.empty() && part.empty())
      replicas_ = static_cast<int>(chosen.size());
    return plan::keep_replicas(std::move(*drawn), chosen, dp);
  }
  /// Where several sources are on, each is simulated alone (with the same draws) to share the wait.
  [[nodiscard]] std::vector<std::string> parts() const override {
    const auto sources = sources_of(noise_);
    std::vector<std::string> out;
    if (sources.size() > 1)
      for (auto src : sources)
        out.emplace_back(noise_source_name(src));
    return out;
  }
  void report(const PassSteps& steps, report::VariantResult& r) const override {
    if (os_) {
      r.set_value("os_noise_host_fraction", os_->host.fraction());
      r.set_value("os_noise_arm_fraction", os_->arm.fraction());
    }
    if (slowest_)
      r.set_value("noise_replicas_simulated", replicas_);
    if (!steps.base.drawn_s)
      return;
    const double clean = steps.base.clean_s;
    const double noisy = *steps.base.drawn_s;
    add_straggler_wait(noisy, clean, r);
    const auto sources = sources_of(noise_);
    std::vector<std::pair<NoiseSource, double>> alone;
    for (auto src : sources) {
      const auto it = steps.parts.find(std::string(noise_source_name(src)));
      alone.emplace_back(src, sources.size() == 1 ? noisy : it != steps.parts.end() ? it->second : clean);
    }
    add_straggler_sources(alone, clean, r);
  }

private:
  static NoiseSource source_named(std::string_view name) {
    for (auto src : kNoiseSources)
      if (noise_source_name(src) == name)
        return src;
    throw std::logic_error("no noise source named " + std::string(name));
  }

  NoiseConfig noise_;
  const scenario::Scenario& scenario_;
  const datapath::DataPath& path_;
  std::optional<OsNoise> os_;
  double storage_sigma_;
  metrics::MetricsInputs in_;
  bool slowest_;
  int replicas_ = 0;
};

} // namespace

std::unique_ptr<Perturbation> noise_perturbation(const RunContext& run,
                                                 const metrics::IterationMetrics& clean,
                                                 const metrics::MetricsInputs& in) {
  const auto* n = noise_of(run.scenario);
  if (n == nullptr)
    return nullptr;
  return std::make_unique<NoisePerturbation>(
      *n, run, os_noise_for(run.scenario, run.hardware, run.path, clean, in, run.host.launch_s_per_kernel),
      in);
}

} // namespace dpusim::model
