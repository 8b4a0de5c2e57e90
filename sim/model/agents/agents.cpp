// Infrastructure agents on every node (telemetry, monitoring...): background work of a number of host
// cores, on the host or, as more of the slower Arm cores, spread over the node's DPUs.
#include "sim/model/model.hpp"
#include "sim/plan/host_work.hpp"
#include "sim/plan/plan_tasks.hpp"

#include <cmath>
#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

void add_agents(plan::HostWork& work) {
  const auto& hosts = work.hosts();
  auto& routes = work.routes();
  const auto& host = work.host();
  if (host.agent_cores <= 0)
    return;
  const bool on_arm = host.agent_site == offload::Site::dpu_arm;
  const int dpus = hosts.topology().layout().node.nics;
  constexpr double kForever = 1e12; // core-seconds: stopped when the iteration ends
  auto spawn = [&](engine::HostIndex where, double cores, int node) {
    const int entries = static_cast<int>(std::ceil(cores - 1e-9));
    for (int e = 0; e < entries; ++e) {
      engine::Task t = plan::task_of(engine::TaskKind::background);
      t.loads.push_back({where, kForever});
      t.loads.push_back({routes.add_limiter(cores / entries), kForever}); // caps it at its share
      plan::TaskInfo i = plan::make_info(plan::TaskCategory::agent, fmt::format("agents node {}", node));
      (on_arm ? i.arm_core_s : i.host_core_s)[static_cast<std::size_t>(plan::CpuUse::agents)] = kForever;
      work.add(std::move(t), std::move(i));
    }
  };
  for (int n = 0; n < hosts.nodes(); ++n) {
    if (on_arm) {
      for (int k = 0; k < dpus; ++k)
        spawn(hosts.arm(n, k), host.agent_cores * host.arm_cores_per_host_core / dpus, n);
    } else {
      spawn(hosts.cpu(n), host.agent_cores, n);
    }
  }
}

class AgentsModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "agents"; }
  [[nodiscard]] std::string_view summary() const override {
    return "infrastructure agents: background host cores per node, or more Arm cores on the DPUs";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {{"cluster.services.agents", "number", "0",
             "host cores per node of infrastructure agents (telemetry, monitoring...)"}};
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    const double agents = s.cluster.services.agent_cores;
    if (agents < 0) {
      out.push_back({"cluster.services.agents", fmt::format("must be zero or more, found {:g}", agents)});
      return;
    }
    const auto* node = cat.node(s.cluster.node);
    if (node == nullptr)
      return;
    const int cores = cat.cpu(node->cpu)->cores.value * node->cpu_sockets.value;
    if (agents > cores)
      out.push_back({"cluster.services.agents",
                     fmt::format("{:g} agent cores exceed the {} host cores of a {} ({} x {})", agents, cores,
                                 s.cluster.node, node->cpu_sockets.value, node->cpu)});
  }
  void add_tasks(plan::HostWork& work, const plan::IterationContext& /*ctx*/) const override {
    add_agents(work);
  }
};

} // namespace

std::unique_ptr<Model> make_agents_model() {
  return std::make_unique<AgentsModel>();
}

} // namespace dpusim::model
