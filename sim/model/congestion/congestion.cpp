// The congestion: section. With it, every RDMA transfer over the fabric is analysed by the fluid models
// of DCQCN and PFC (models/congestion/) on its routes and stretched by what they leave of its links
// (sim/plan/congestion_analysis); without it links are shared max-min, as before.
#include "sim/model/congestion/congestion.hpp"

#include "sim/model/catalog_names.hpp"
#include "sim/model/model.hpp"
#include "sim/model/pass.hpp"
#include "sim/model/registry.hpp"
#include "sim/topology/topology.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

namespace dpusim::model {
namespace {

constexpr std::string_view kSection = "congestion";

class CongestionModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "congestion"; }
  [[nodiscard]] std::string_view summary() const override {
    return "RoCE congestion: DCQCN and PFC fluid models on each RDMA transfer's switch ports (pauses, "
           "congestion spreading, rate control)";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"congestion", "section", "none (links shared max-min: ideal congestion control)",
         "RoCE congestion on the fabric's switch ports"},
        {"congestion.control", "catalog congestion", "required",
         "the rate control and PFC buffers: dcqcn-paper | dcqcn-mlx | pfc-only "
         "(models/catalog/data/congestion/)"},
        {"congestion.storage_class", "choice", "shared",
         "shared (storage and checkpoint traffic in the job's PFC priority) | separate (a priority of its "
         "own, "
         "which any RoCE NIC or DPU can tag: its pauses stop only storage traffic)"},
    };
  }
  [[nodiscard]] report::Explainer explainer() const override {
    report::Explainer e;
    e.also = [](const report::VariantResult& base, const report::VariantResult& r) {
      const double a = r.value("congestion_cost_s");
      const double b = base.value("congestion_cost_s");
      if (a == 0 && b == 0)
        return std::string();
      return fmt::format(" Congestion (PFC pauses, rate control) costs {} {:.4f} s per step and {} {:.4f} s.",
                         r.variant, a, base.variant, b);
    };
    return e;
  }
  [[nodiscard]] std::string_view section() const override { return kSection; }
  void read(yaml::Map m, scenario::Scenario& s) const override {
    m.declare(registry().keys_under(kSection));
    CongestionConfig c;
    c.control = m.required("control", "a catalog congestion setting, e.g. dcqcn-paper").as_string();
    if (auto sc = m.optional("storage_class"))
      c.storage_separate = sc->as_choice({"shared", "separate"}) == "separate";
    m.finish();
    s.extensions[std::string(kSection)] = c;
  }
  [[nodiscard]] std::vector<report::Output> outputs() const override {
    return {
        {"congestion_cost_s", "s",
         "what DCQCN and PFC add to the step against the same iteration with links shared max-min", true,
         false},
        {"{}_congestion_cost_s", "s",
         "the same for a pass reported apart (e.g. checkpoint_congestion_cost_s)", false, false},
    };
  }
  [[nodiscard]] bool alters_passes(const scenario::Scenario& s) const override {
    return congestion_of(s) != nullptr;
  }
  [[nodiscard]] std::unique_ptr<Stretch> stretch(const RunContext& run) const override;
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    const auto* c = congestion_of(s);
    if (c == nullptr)
      return;
    const auto* spec = cat.congestion(c->control);
    if (spec == nullptr) {
      out.push_back(
          {"congestion.control", unknown_name(c->control, cat.congestion_names(), "congestion setting")});
      return;
    }
    const auto* sw = cat.network_switch(s.cluster.fabric.switch_model);
    if (sw != nullptr && sw->link_layer != catalog::LinkLayer::ethernet)
      out.push_back({"congestion.control",
                     fmt::format("DCQCN and PFC are RoCE's, and the {} is an {} switch (credit-based flow "
                                 "control, not modelled); leave congestion out or use an Ethernet switch",
                                 sw->name, catalog::link_layer_name(sw->link_layer))});
    // The switch ports' PFC buffers must hold their headroom at the fabric's and the NICs' rates.
    for (const auto* name : {&s.cluster.nic, &s.cluster.dpu}) {
      const auto* nic = name->empty() ? nullptr : cat.nic(*name);
      for (const auto rate : {s.cluster.fabric.link, nic ? nic->line_rate.value : s.cluster.fabric.link}) {
        try {
          (void)catalog::pfc_ingress_port(*spec, rate);
        } catch (const std::invalid_argument& e) {
          out.push_back({"congestion.control", fmt::format("{}: {}", spec->name, e.what())});
          return;
        }
      }
    }
  }
};

/// The tier a port's link joins, as "nic->leaf", "leaf->spine", "spine->core"...
std::string tier_name(const topology::Topology& topo, std::int32_t e) {
  return fmt::format("{}->{}", topology::vertex_kind_name(topo.vertex(topo.edge_source(e)).kind),
                     topology::vertex_kind_name(topo.vertex(topo.edge_target(e)).kind));
}

std::string port_name(const topology::Topology& topo, std::int32_t e) {
  const auto& g = topo.graph();
  return fmt::format("{}->{}", g[topo.edge_source(e)].name, g[topo.edge_target(e)].name);
}

} // namespace

int traffic_class(const CongestionConfig& c, const offload::Variant& v, const engine::Task& t,
                  plan::TaskCategory category) {
  if (category == plan::TaskCategory::checkpoint || category == plan::TaskCategory::data_load)
    return v.placement[offload::Function::storage] == offload::Site::host ? -1 : (c.storage_separate ? 1 : 0);
  return plan::CongestionAnalysis::default_class(t);
}

const CongestionConfig* congestion_of(const scenario::Scenario& s) {
  return s.extension<CongestionConfig>(kSection);
}

namespace {

/// What the ports met: the worst stretch, the most paused port, the most marked one.
std::string ports_clause(const plan::CongestionSummary& summary, const topology::Topology& topo) {
  std::string s;
  if (summary.slowed > 0)
    s += fmt::format("; the worst, {}, takes {:.2f}x as long",
                     summary.worst_label.empty() ? "a transfer" : summary.worst_label, summary.worst_factor);
  const plan::PortCongestion* pause = nullptr;
  const plan::PortCongestion* mark = nullptr;
  for (const auto& [e, p] : summary.ports) {
    if (p.pause_fraction > 0 && (pause == nullptr || p.pause_fraction > pause->pause_fraction))
      pause = &p;
    if (p.marking > 0 && (mark == nullptr || p.marking > mark->marking))
      mark = &p;
  }
  if (pause != nullptr) {
    s += fmt::format("; the most paused port, {}, had its sender paused {:.0f}% of the time (PFC)",
                     port_name(topo, pause->link), 100 * pause->pause_fraction);
    // The worst pause of each tier, senders' side first.
    std::map<std::string, double> by_tier;
    for (const auto& [e, p] : summary.ports)
      if (p.pause_fraction > 0) {
        auto& worst = by_tier[tier_name(topo, e)];
        worst = std::max(worst, p.pause_fraction);
      }
    std::vector<std::string> tiers;
    for (const auto& [tier, worst] : by_tier)
      tiers.push_back(fmt::format("{} {:.0f}%", tier, 100 * worst));
    s += fmt::format(" (worst pause by tier: {})", fmt::join(tiers, ", "));
  }
  if (mark != nullptr)
    s += fmt::format("; the most marked, {}, ECN-marked {:.2f}% of its packets at a mean queue of {:.1f} KB, "
                     "DCQCN leaving {:.1f}% of its rate",
                     port_name(topo, mark->link), 100 * mark->marking, mark->queue_bytes / 1e3,
                     100 * mark->utilisation);
  for (const auto& [rate, thresholds] : summary.unmarked)
    s += fmt::format(
        "; on its {:.0f} Gb/s ports ECN marking starts at {:.0f} KB, above PFC's XOFF of {:.0f} KB: "
        "PFC pauses before DCQCN is told anything, so its rate control does nothing there",
        static_cast<double>(rate) * 8 / 1e9, thresholds.first / 1e3, thresholds.second / 1e3);
  return s;
}

double cost_of(double step_s, double uncongested_step_s) {
  const double raw = step_s - uncongested_step_s;
  return std::abs(raw) < 1e-12 ? 0.0 : raw; // no "-0.0000"
}

} // namespace

void add_congestion_report(const CongestionConfig& c, const plan::CongestionSummary& summary,
                           const topology::Topology& topo, double step_s, double uncongested_step_s,
                           report::VariantResult& r) {
  const double cost = cost_of(step_s, uncongested_step_s);
  r.set_value("congestion_cost_s", cost);
  if (summary.transfers == 0) {
    r.notes.push_back(fmt::format(
        "congestion ({}): no RDMA transfer crosses the fabric in this variant; kernel TCP runs in a lossy "
        "class that PFC does not pause, and its drops and retransmissions are not modelled, so its result is "
        "an upper bound on its speed under congestion",
        c.control));
    return;
  }
  r.notes.push_back(fmt::format(
      "congestion ({}): {} of {} RDMA transfers over the fabric slow down by more than 0.1% at switch ports "
      "they overload or that pause; they cost {:.4f} s per step ({:+.1f}%, {:.0f}% of the exposed "
      "communication) "
      "against the same iteration with links shared max-min on the same platform{}",
      c.control, summary.slowed, summary.transfers, cost, 100 * cost / std::max(1e-12, uncongested_step_s),
      100 * cost / std::max(1e-12, r.metrics.exposed_comm_s), ports_clause(summary, topo)));
}

namespace {

/// What congestion did to a pass reported apart ("in <what>").
void add_pass_congestion(const CongestionConfig& c, const plan::CongestionSummary& summary,
                         const topology::Topology& topo, double step_s, double uncongested_step_s,
                         const std::string& pass, const std::string& what, report::VariantResult& r) {
  if (summary.transfers == 0)
    return;
  const double cost = cost_of(step_s, uncongested_step_s);
  r.set_value(fmt::format("{}_congestion_cost_s", pass), cost);
  r.notes.push_back(fmt::format(
      "congestion ({}) in {} ({}): {} of {} RoCE transfers slow down by "
      "more than 0.1%; it takes {:.4f} s longer ({:+.1f}%) than with links shared max-min{}",
      c.control, what,
      c.storage_separate ? "storage in a PFC priority of its own" : "storage in the job's PFC priority",
      summary.slowed, summary.transfers, cost, 100 * cost / std::max(1e-12, uncongested_step_s),
      ports_clause(summary, topo)));
}

/// RoCE congestion stretches each RDMA transfer by what DCQCN and PFC leave of its links, among the
/// transfers the uncongested run had running with it (docs/models/congestion.md). Under kernel TCP it
/// stretches nothing and says so.
class CongestionStretch final : public Stretch {
public:
  CongestionStretch(const CongestionConfig& c, const RunContext& run)
      : config_(c), variant_(run.variant), topo_(run.topology) {
    if (run.path.transport() == offload::Transport::rdma)
      analysis_.emplace(*run.catalog.congestion(c.control), run.routes,
                        link_capacity(run.topology, run.platform));
  }
  [[nodiscard]] bool active() const override { return analysis_.has_value(); }
  [[nodiscard]] std::unique_ptr<Stretch> fresh() const override {
    auto f = std::make_unique<CongestionStretch>(*this);
    if (f->analysis_)
      f->analysis_->reset();
    return f;
  }
  bool stretch_probes(
      plan::IterationPlan& p,
      const std::function<std::vector<engine::TaskTiming>(const engine::TaskGraph&)>& time) override {
    bool any = false;
    for (auto* probe : {&p.probe, &p.ep_probe, &p.cp_probe})
      if (probe->size() > 0)
        any |= analysis_->apply(*probe, time(*probe), [probe, &p](engine::TaskId) {
          return std::string(probe == &p.ep_probe   ? "an expert-parallel all-to-all"
                             : probe == &p.cp_probe ? "a context-parallel all-gather"
                                                    : "a tensor-parallel all-reduce");
        });
    return any;
  }
  bool stretch(plan::IterationPlan& p, const std::vector<engine::TaskTiming>& clean) override {
    const auto label = [&p](engine::TaskId id) {
      return static_cast<std::size_t>(id) < p.info.size() ? p.info[static_cast<std::size_t>(id)].label
                                                          : std::string();
    };
    return analysis_->apply(p.graph, clean, label, [&p, this](engine::TaskId id) {
      const auto i = static_cast<std::size_t>(id);
      return traffic_class(config_, variant_, p.graph.task(id),
                           i < p.info.size() ? p.info[i].category : plan::TaskCategory::join);
    });
  }
  void report(const PassSteps& steps, report::VariantResult& r) const override {
    add_congestion_report(config_, analysis_ ? analysis_->summary() : plan::CongestionSummary{}, topo_,
                          steps.base.clean_s, steps.base.unstretched_s, r);
  }
  void report_pass(const std::string& name, const std::string& what, const PassStep& step,
                   report::VariantResult& r) const override {
    if (analysis_)
      add_pass_congestion(config_, analysis_->summary(), topo_, step.clean_s, step.unstretched_s, name, what,
                          r);
  }
  [[nodiscard]] const plan::CongestionSummary* congestion() const override {
    return analysis_ ? &analysis_->summary() : nullptr;
  }

private:
  CongestionConfig config_;
  const offload::Variant& variant_;
  const topology::Topology& topo_;
  std::optional<plan::CongestionAnalysis> analysis_;
};

std::unique_ptr<Stretch> CongestionModel::stretch(const RunContext& run) const {
  const auto* c = congestion_of(run.scenario);
  return c == nullptr ? nullptr : std::make_unique<CongestionStretch>(*c, run);
}

} // namespace

std::unique_ptr<Model> make_congestion_model() {
  return std::make_unique<CongestionModel>();
}

} // namespace dpusim::model
