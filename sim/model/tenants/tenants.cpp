// Other tenants' jobs sharing the fabric: bulk flows per leaf across the spines, sharing the links
// plainly (max-min per flow) or held by their DPUs to a share that guarantees this job the rest.
#include "sim/model/tenants/tenants.hpp"

#include "sim/model/model.hpp"
#include "sim/plan/host_work.hpp"
#include "sim/plan/plan_tasks.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/topology/topology.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

/// Other tenants' bulk flows: endpoint i of each leaf sends to endpoint i of the next leaf until the
/// iteration ends, routed by ECMP like any flow, limited by their endpoints' ports (Topology::build).
void add_cross_traffic(plan::HostWork& work) {
  const auto& hosts = work.hosts();
  auto& routes = work.routes();
  const int n = hosts.tenants();
  const int leaves = hosts.topology().num_leaves();
  if (n == 0 || leaves < 2)
    return;
  const int per_leaf = n / leaves;
  constexpr double kForever = 1e18; // bytes: stopped when the iteration ends
  for (int l = 0; l < leaves; ++l)
    for (int i = 0; i < per_leaf; ++i) {
      const auto src = hosts.tenant(l * per_leaf + i);
      const auto dst = hosts.tenant(((l + 1) % leaves) * per_leaf + i);
      (void)routes.route_hosts(src, dst);
      engine::Task t = plan::task_of(engine::TaskKind::background);
      t.flows.push_back({src, dst, kForever});
      work.add(std::move(t),
               plan::make_info(plan::TaskCategory::cross_traffic, fmt::format("tenant flow {}.{}", l, i)));
    }
}

class TenantsModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "tenants"; }
  [[nodiscard]] std::string_view summary() const override {
    return "other tenants' bulk flows across the spines, shared plainly or rate-limited by their DPUs";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"cluster.tenants", "section", "none", "other jobs sharing the fabric"},
        {"cluster.tenants.flows", "count", "required",
         "other tenants' bulk flows per leaf, crossing the spines"},
        {"cluster.tenants.isolation", "choice", "shared",
         "shared (max-min per flow) | dpu_qos (their DPUs "
         "rate-limit them)"},
        {"cluster.tenants.guarantee", "fraction", "required with dpu_qos",
         "the share of each leaf's up-links left to this job, strictly between 0 and 1"},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto& t = s.cluster.tenants;
    if (t.flows < 0)
      out.push_back({"cluster.tenants.flows", fmt::format("must be at least 1, found {}", t.flows)});
    if (t.guarantee != 0 && !(t.guarantee > 0 && t.guarantee < 1))
      out.push_back(
          {"cluster.tenants.guarantee",
           "the guaranteed share of the up-links is a fraction strictly between 0 and 1, e.g. 0.6"});
    if (t.guarantee != 0 && !t.dpu_qos)
      out.push_back({"cluster.tenants.guarantee",
                     "a guarantee needs isolation: dpu_qos (with plain sharing nothing is guaranteed)"});
    if (t.dpu_qos && s.cluster.dpu.empty())
      out.push_back(
          {"cluster.tenants", "isolation: dpu_qos is enforced by DPUs: add cluster.dpu (e.g. bluefield-3)"});
    if (t.dpu_qos && t.guarantee == 0)
      out.push_back({"cluster.tenants.guarantee",
                     "missing required key (expected the share of each leaf's up-links "
                     "the DPUs leave this job, e.g. 0.75)"});
  }
  /// Other tenants' DPUs hold them to their share of the up-links where the job runs on DPUs.
  void shape_layout(const scenario::Scenario& s, const offload::Variant& v,
                    topology::ClusterLayout& layout) const override {
    layout.tenants.uplink_share = isolated(s, v) ? 1.0 - s.cluster.tenants.guarantee : 1.0;
  }
  void add_tasks(plan::HostWork& work, const plan::IterationContext& /*ctx*/) const override {
    add_cross_traffic(work);
  }
  [[nodiscard]] report::Explainer explainer() const override {
    report::Explainer e;
    e.cause = [](const report::VariantResult& slow, const report::VariantResult& fast, double comm_share) {
      if (slow.isolation != "shared" || fast.isolation != "dpu_qos")
        return std::string();
      return fmt::format(
          " {:.0f}% of the difference is exposed communication: {}'s flows share the leaf-spine "
          "links plainly with other tenants' bulk flows, each flow getting an equal share, while "
          "the DPUs of {} hold the other tenants to {:.0f}% of the up-links, so its "
          "data-parallel reduction takes {:.1f}x as long.",
          100 * comm_share, slow.variant, fast.variant, 100 * (1 - fast.guarantee),
          slow.metrics.dp_comm_s / std::max(1e-12, fast.metrics.dp_comm_s));
    };
    e.unchanged = [](const report::VariantResult& base, const report::VariantResult& r) {
      return base.isolation == "shared" && r.isolation == "shared"
                 ? std::string(
                       " the inter-leaf flows of both share the links plainly with other tenants' bulk "
                       "flows, which bound the gradient reduction whatever carries it;")
                 : std::string();
    };
    e.dpu_over_nic = [](const report::VariantResult& dpu, const report::VariantResult& nic) {
      return dpu.isolation == "dpu_qos" && nic.isolation == "shared"
                 ? fmt::format(": its DPUs enforce the other tenants' rate limits, which a plain NIC cannot, "
                               "guaranteeing this job {:.0f}% of the leaf up-links.",
                               100 * dpu.guarantee)
                 : std::string();
    };
    return e;
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto& t = run.scenario.cluster.tenants;
    if (t.flows <= 0)
      return;
    const bool qos = isolated(run.scenario, run.variant);
    if (run.topology.num_tenants() > 0) {
      r.isolation = qos ? "dpu_qos" : "shared";
      r.guarantee = qos ? t.guarantee : 0.0;
    }
    if (run.topology.num_tenants() == 0)
      r.notes.push_back(fmt::format("the job's nodes hang off one leaf: other tenants' {} flows per leaf "
                                    "never share a link with it",
                                    t.flows));
    else
      r.notes.push_back(fmt::format(
          "other tenants: {} bulk flows per leaf across the spines, {}", t.flows,
          qos ? fmt::format("held by their DPUs to {:.0f}% of each leaf's up-links (this job is guaranteed "
                            "{:.0f}%)",
                            100 * (1 - t.guarantee), 100 * t.guarantee)
              : std::string(t.dpu_qos ? "sharing the links plainly (max-min per flow): "
                                        "their rate limits need this job's nodes on DPUs too"
                                      : "sharing the links plainly (max-min per flow)")));
  }
};

} // namespace

bool isolated(const scenario::Scenario& s, const offload::Variant& v) {
  // Other tenants' DPUs hold them to their share of the up-links only where the job runs on DPUs.
  return s.cluster.tenants.dpu_qos && v.on_dpu;
}

std::unique_ptr<Model> make_tenants_model() {
  return std::make_unique<TenantsModel>();
}

} // namespace dpusim::model
