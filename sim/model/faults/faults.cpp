// What-if faults: slow nodes. A tensor-parallel group runs in lockstep, so a group with a GPU on a slow
// node computes at that GPU's pace; pipeline sends and data-parallel collectives then wait for it as
// they are simulated, so the whole step pays what the slowest group costs (no expected-maximum formula).
// Replicas differ, so every data-parallel replica is simulated.
#include "sim/model/faults/faults.hpp"

#include "sim/model/model.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <set>

namespace dpusim::model {
namespace {

constexpr std::string_view kSection = "faults";

class FaultsModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "faults"; }
  [[nodiscard]] std::string_view summary() const override {
    return "what-if faults: nodes whose GPUs run slower, paced through every synchronous step";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"faults", "section", "none", "what-if faults in the cluster"},
        {"faults.slow_nodes", "list of node indices", "required", "nodes (0-based) whose GPUs run slower"},
        {"faults.slow_speed", "fraction", "required",
         "their GPUs' speed as a fraction of the catalog's, in (0, 1], e.g. 0.5"},
    };
  }
  [[nodiscard]] std::string_view section() const override { return kSection; }
  void read(yaml::Map m, scenario::Scenario& s) const override {
    m.declare({"slow_nodes", "slow_speed"});
    FaultsConfig f;
    for (const auto& item :
         m.required("slow_nodes", "a list of node indices, e.g. [3]").as_sequence().items())
      f.slow_nodes.push_back(static_cast<int>(item.as_int(0, 1 << 16)));
    const auto speed = m.required("slow_speed", "a fraction of the GPUs' speed, e.g. 0.5");
    f.slow_speed = speed.as_number(0, 1);
    m.finish();
    s.extensions[std::string(kSection)] = f;
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto* f = s.extension<FaultsConfig>(kSection);
    if (f == nullptr)
      return;
    if (f->slow_nodes.empty())
      out.emplace_back("faults.slow_nodes", "lists no node; give at least one node index, e.g. [0]");
    std::set<int> seen;
    for (std::size_t i = 0; i < f->slow_nodes.size(); ++i) {
      const int n = f->slow_nodes[i];
      const std::string key = fmt::format("faults.slow_nodes[{}]", i);
      if (n < 0 || n >= s.cluster.nodes)
        out.emplace_back(key, fmt::format("node {} does not exist: the cluster's nodes are 0 to {}", n,
                                          s.cluster.nodes - 1));
      else if (!seen.insert(n).second)
        out.emplace_back(key, fmt::format("node {} is listed twice", n));
    }
    if (!(f->slow_speed > 0 && f->slow_speed <= 1))
      out.emplace_back(
          "faults.slow_speed",
          fmt::format("must be a fraction in (0, 1] of the GPUs' speed, found {:g}", f->slow_speed));
  }
  [[nodiscard]] bool replicas_differ(const scenario::Scenario& s) const override {
    const auto* f = s.extension<FaultsConfig>(kSection);
    return f != nullptr && !f->slow_nodes.empty() && f->slow_speed < 1;
  }
  void shape(plan::IterationPlan& plan, const plan::IterationContext& ctx) const override {
    const auto* f =
        ctx.host.scenario == nullptr ? nullptr : ctx.host.scenario->extension<FaultsConfig>(kSection);
    if (f == nullptr || f->slow_nodes.empty())
      return;
    const int per_node = ctx.host.scenario->cluster.gpus_per_node;
    const std::set<int> slow(f->slow_nodes.begin(), f->slow_nodes.end());
    for (auto& info : plan.info) {
      if (info.category != plan::TaskCategory::forward && info.category != plan::TaskCategory::backward &&
          info.category != plan::TaskCategory::optimizer)
        continue;
      // The group's kernels run in lockstep: one slow GPU paces all of them.
      if (std::any_of(info.gpus.begin(), info.gpus.end(), [&](int g) { return slow.contains(g / per_node); }))
        info.compute_s /= f->slow_speed;
    }
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto* f = run.scenario.extension<FaultsConfig>(kSection);
    if (f == nullptr || f->slow_nodes.empty())
      return;
    r.notes.push_back(fmt::format(
        "faults: node{} {} with GPUs at {:.0f}% of their speed; tensor-parallel groups there compute at "
        "that pace and every synchronous step waits for them, so all {} data-parallel replicas were "
        "simulated",
        f->slow_nodes.size() == 1 ? "" : "s", fmt::join(f->slow_nodes, ", "), 100 * f->slow_speed,
        run.scenario.workload.parallelism.dp));
  }
};

} // namespace

std::unique_ptr<Model> make_faults_model() {
  return std::make_unique<FaultsModel>();
}

} // namespace dpusim::model
