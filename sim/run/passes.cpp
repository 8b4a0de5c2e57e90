#include "sim/run/passes.hpp"

#include "sim/run/variant_parts.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace dpusim::run {

/// A pass's own hardware and what follows from it (PassRequest::hardware); its probes are its own,
/// simulated on the platform (not stretched: a model that stretches leaves these passes as they are).
struct PassExecutor::Parts {
  std::unique_ptr<scenario::Hardware> hardware;
  std::unique_ptr<datapath::DataPath> path;
  std::unique_ptr<plan::CollectiveLowering> lowering;
  std::vector<plan::StageCosts> costs;
};

struct PassExecutor::Pass {
  std::string name; // empty: the prediction's build
  const model::Model* owner = nullptr;
  model::PassRequest request;
  plan::IterationPlan plan;
  std::optional<plan::IterationPlan> whole; // every replica's tasks, for a model that picks from them
  bool host_tasks_only = false;
  std::unique_ptr<Parts> parts; // its own hardware, where it asked for one
  metrics::MetricsInputs in;    // what its metrics take: the probes' durations it runs with
  model::PassStep step;
};

namespace {

/// A pass's build: the prediction's, on the pass's own hardware where it has one, changed as it asks.
template <typename P>
model::PassBuild build_of(const P& p, const model::PassBuild& base, const PassInputs& in) {
  auto b = base;
  if (p.parts)
    b.host = host_side(in.scenario, *p.parts->hardware, in.variant, *p.parts->path);
  if (p.request.build)
    p.request.build(b);
  return b;
}

} // namespace

PassExecutor::PassExecutor(const PassInputs& in, std::vector<const model::Model*> models)
    : inputs_(in), models_(std::move(models)) {
  const auto& s = in.scenario;
  model::PassBuild base_build;
  for (const auto* m : models_)
    base_build.extensions.push_back(m);
  base_build.host = in.host;
  base_build.plain = in.parts_allowed && std::none_of(models_.begin(), models_.end(),
                                                      [&s](const auto* m) { return m->alters_passes(s); });
  const bool every_replica =
      std::any_of(models_.begin(), models_.end(), [&s](const auto* m) { return m->builds_every_replica(s); });

  std::vector<std::pair<const model::Model*, model::PassRequest>> requests;
  const model::PassContext context{s, in.variant, in.hardware, in.path, in.explain};
  for (const auto* m : models_)
    for (auto& r : m->passes(context)) {
      if (r.name.empty() || std::any_of(requests.begin(), requests.end(),
                                        [&r](const auto& q) { return q.second.name == r.name; }))
        throw std::logic_error("model " + std::string(m->name()) + " asks for a pass named '" + r.name +
                               "': a pass needs a name of its own");
      requests.emplace_back(m, std::move(r));
    }

  passes_.reserve(requests.size() + 1);
  passes_.emplace_back();
  passes_.front().plan = build(base_build, in.representative, nullptr);
  for (auto& [m, r] : requests) {
    Pass p;
    p.name = r.name;
    p.owner = m;
    p.request = std::move(r);
    if (p.request.hardware) {
      p.parts = std::make_unique<Parts>();
      p.parts->hardware = std::make_unique<scenario::Hardware>(in.hardware);
      p.request.hardware(*p.parts->hardware);
      const auto& hw = *p.parts->hardware;
      p.parts->path = std::make_unique<datapath::DataPath>(in.variant, s.cluster.services, hw);
      p.parts->lowering = std::make_unique<plan::CollectiveLowering>(in.routes, hw, *p.parts->path);
      p.parts->lowering->set_alltoall_parts(s.workload.alltoall_parts);
      p.parts->costs = stage_costs(s.workload, scenario::gpu_compute(hw));
    }
    auto b = build_of(p, base_build, in);
    p.host_tasks_only = b.host_tasks_only;
    p.plan = build(b, in.representative, p.parts.get());
    passes_.push_back(std::move(p));
  }
  // Every replica's tasks, built with the others (their routes are declared before the platform is).
  if (every_replica) {
    const int dp = s.workload.parallelism.dp;
    for (std::size_t k = 0; k < passes_.size(); ++k) {
      auto& p = passes_[k];
      if (p.plan.simulated_replicas == dp || p.request.undrawn) // nothing is drawn into an undrawn pass
        continue;
      p.whole = build(k > 0 ? build_of(p, base_build, in) : base_build, false, p.parts.get());
    }
  }
}

PassExecutor::~PassExecutor() = default;

plan::IterationPlan PassExecutor::build(const model::PassBuild& b, bool representative,
                                        const Parts* parts) const {
  if (b.host_tasks_only)
    return plan::build_host_tasks(inputs_.routes, b.host, b.extensions);
  return plan::build_iteration(inputs_.scenario.workload, parts != nullptr ? parts->costs : inputs_.costs,
                               inputs_.routes, parts != nullptr ? *parts->lowering : inputs_.lowering,
                               representative, b.host, b.extensions);
}

namespace {

/// Runs a graph alone and returns when its last task ended (0 for an empty graph). A probe's duration
/// stands for many collectives, so no flapping link goes down under it (the iteration's own flows see
/// the flaps).
double run_probe(simgrid::Simulator& simulator, const engine::TaskGraph& probe) {
  double end = 0;
  if (probe.size() > 0)
    for (const auto& t : simulator.execute(probe, {}, simgrid::Simulator::Flaps::none))
      end = std::max(end, t.end);
  return end;
}

void run_probes(simgrid::Simulator& simulator, const plan::IterationPlan& p, metrics::MetricsInputs& in) {
  in.tp_collective_s = run_probe(simulator, p.probe);
  in.ep_collective_s = run_probe(simulator, p.ep_probe);
  in.cp_collective_s = run_probe(simulator, p.cp_probe);
}

void apply_probes(plan::IterationPlan& p, const metrics::MetricsInputs& in) {
  p.apply_probe(in.tp_collective_s, in.ep_collective_s, in.cp_collective_s);
}

} // namespace

std::vector<engine::TaskTiming>
PassExecutor::stretch(Pass& p, const std::vector<engine::TaskTiming>& clean,
                      std::vector<std::unique_ptr<model::Stretch>>& stretches) {
  bool stretched = false;
  for (auto& st : stretches)
    if (st->active())
      stretched |= st->stretch(p.plan, clean);
  apply_probes(p.plan, p.in);
  return stretched || probes_stretched_ ? simulator_->execute(p.plan.graph, progress_, flaps(p)) : clean;
}

simgrid::Simulator::Flaps PassExecutor::flaps(const Pass& p) {
  return p.request.steady_links ? simgrid::Simulator::Flaps::none : simgrid::Simulator::Flaps::apply;
}

void PassExecutor::run(simgrid::Simulator& simulator, const model::RunContext& run,
                       metrics::MetricsInputs& in, const simgrid::Simulator::Progress& progress) {
  simulator_ = &simulator;
  progress_ = progress;
  const auto step_of = [](const plan::IterationPlan& p, const std::vector<engine::TaskTiming>& t,
                          const metrics::MetricsInputs& with) {
    return metrics::compute_metrics(p, t, with).step_time_s;
  };

  // The prediction's build, links shared max-min.
  auto& base = passes_.front();
  run_probes(simulator, base.plan, in);
  base.in = in;
  apply_probes(base.plan, in);
  base_timings_ = simulator.execute(base.plan.graph, progress);

  // Stretched (the probes first: they are reused in every pass).
  for (const auto* m : models_)
    if (auto st = m->stretch(run))
      stretches_.push_back(std::move(st));
  const bool stretching =
      std::any_of(stretches_.begin(), stretches_.end(), [](const auto& st) { return st->active(); });
  if (stretching) {
    unstretched_ = base.plan;
    base.step.unstretched_s = step_of(base.plan, base_timings_, in);
    const auto time = [&simulator](const engine::TaskGraph& g) {
      return simulator.execute(g, {}, simgrid::Simulator::Flaps::none);
    };
    for (auto& st : stretches_)
      if (st->active())
        probes_stretched_ |= st->stretch_probes(base.plan, time);
    run_probes(simulator, base.plan, in);
    base.in = in;
    base_timings_ = stretch(base, base_timings_, stretches_);
  }
  clean_metrics_ = metrics::compute_metrics(base.plan, base_timings_, in);
  base.step.clean_s = clean_metrics_.step_time_s;
  if (!stretching)
    base.step.unstretched_s = base.step.clean_s;
  prediction_metrics_ = clean_metrics_;

  // The draws, made from the prediction's noise-free run.
  for (const auto* m : models_)
    if (auto p = m->perturbation(run, clean_metrics_, in)) {
      if (perturbation_)
        throw std::logic_error("two models draw into the passes: " + std::string(perturber_->name()) +
                               " and " + std::string(m->name()));
      perturber_ = m;
      perturbation_ = std::move(p);
    }

  // The passes models asked for, noise-free (each stretched on its own); those that are never drawn
  // into last, after the prediction's draws.
  const auto run_clean = [&](std::size_t k) {
    auto& p = passes_[k];
    auto t = simulator.execute(p.plan.graph, progress, flaps(p));
    p.step.unstretched_s = step_of(p.plan, t, p.in);
    if (stretching) {
      std::vector<std::unique_ptr<model::Stretch>> own;
      for (const auto& st : stretches_)
        own.push_back(st->fresh());
      t = stretch(p, t, own);
      if (!p.request.reported_apart.empty())
        stretches_apart_.emplace_back(k, std::move(own));
    }
    p.step.clean_s = step_of(p.plan, t, p.in);
  };
  for (std::size_t k = 1; k < passes_.size(); ++k) {
    auto& p = passes_[k];
    p.in = in;
    if (p.parts)
      run_probes(simulator, p.plan, p.in);
    apply_probes(p.plan, p.in);
    if (p.request.undrawn || (p.request.drawn_only && perturbation_ && !stretching))
      continue; // below
    run_clean(k);
  }

  // With the draws: the prediction, each part of them alone, every pass.
  if (perturbation_) {
    drawn_ = perturbation_->draw(base.plan, base.whole ? &*base.whole : nullptr, {}, {});
    if (drawn_) {
      apply_probes(*drawn_, in);
      drawn_timings_ = simulator.execute(drawn_->graph, progress);
      prediction_metrics_ = metrics::compute_metrics(*drawn_, drawn_timings_, in);
      base.step.drawn_s = prediction_metrics_.step_time_s;
      for (const auto& part : perturbation_->parts())
        if (auto one = perturbation_->draw(base.plan, base.whole ? &*base.whole : nullptr, {}, part)) {
          apply_probes(*one, in);
          steps_.parts[part] = step_of(*one, simulator.execute(one->graph), in);
        }
    }
    for (std::size_t k = 1; k < passes_.size(); ++k) {
      auto& p = passes_[k];
      if (p.request.undrawn)
        continue;
      if (auto d = perturbation_->draw(p.plan, p.whole ? &*p.whole : nullptr, p.name, {})) {
        apply_probes(*d, p.in);
        p.step.drawn_s = step_of(*d, simulator.execute(d->graph, progress, flaps(p)), p.in);
      } else if (p.request.drawn_only && !stretching) {
        p.step.clean_s = step_of(p.plan, simulator.execute(p.plan.graph, progress, flaps(p)), p.in);
        p.step.unstretched_s = p.step.clean_s;
      }
    }
  }

  for (std::size_t k = 1; k < passes_.size(); ++k)
    if (passes_[k].request.undrawn)
      run_clean(k);

  steps_.base = base.step;
  for (std::size_t k = 1; k < passes_.size(); ++k) {
    passes_[k].step.host_tasks_only = passes_[k].host_tasks_only;
    steps_.passes[passes_[k].name] = passes_[k].step;
  }
}

void PassExecutor::report(report::VariantResult& r) const {
  r.metrics = clean_metrics_;
  for (const auto& st : stretches_)
    st->report(steps_, r);
  r.metrics = prediction_metrics_;
  for (const auto* m : models_) {
    for (const auto& [k, own] : stretches_apart_)
      if (passes_[k].owner == m)
        for (const auto& st : own)
          st->report_pass(passes_[k].name, passes_[k].request.reported_apart, passes_[k].step, r);
    m->account(model::PassContext{inputs_.scenario, inputs_.variant, inputs_.hardware, inputs_.path,
                                  inputs_.explain},
               steps_, r);
    if (m == perturber_)
      perturbation_->report(steps_, r);
  }
}

const plan::IterationPlan& PassExecutor::base() const {
  return passes_.front().plan;
}

const plan::IterationPlan& PassExecutor::prediction() const {
  return drawn_ ? *drawn_ : passes_.front().plan;
}

const std::vector<engine::TaskTiming>& PassExecutor::prediction_timings() const {
  return drawn_ ? drawn_timings_ : base_timings_;
}

const plan::IterationPlan* PassExecutor::unstretched() const {
  return unstretched_ ? &*unstretched_ : nullptr;
}

const plan::CongestionSummary* PassExecutor::congestion() const {
  for (const auto& st : stretches_)
    if (const auto* c = st->congestion())
      return c;
  return nullptr;
}

} // namespace dpusim::run
