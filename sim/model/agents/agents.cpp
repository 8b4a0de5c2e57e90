// Infrastructure agents on every node (telemetry, monitoring...): background work of a number of host
// cores, on the host or, as more of the slower Arm cores, spread over the node's DPUs.
#include "models/base/input_error.hpp"
#include "sim/model/model.hpp"
#include "sim/plan/host_work.hpp"
#include "sim/plan/plan_tasks.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/topology/topology.hpp"

#include <cmath>
#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

/// Arm cores that do the work of `host_cores` host cores: as many more as an Arm core is slower at the
/// kernel networking the agents' work is measured by.
double arm_demand(double host_cores, units::DataRate host_rx_per_core, const catalog::CpuSpec& arm) {
  return host_cores * host_rx_per_core.si() / arm.tcp_rx_rate_per_core.value.si();
}

/// `who` is the subject of the sentence: a variant, or the run with its profile's rates.
std::string overflow_message(const std::string& who, double agents, double demand, int capacity,
                             const std::string& dpu, int dpus) {
  return fmt::format(
      "{} places {:g} host cores of agents on the DPUs' Arm cores, where they need "
      "{:.1f} Arm cores, but the {} {}{} of each host (a server, or a tray of a rack) {} {}: the work "
      "would not fit (place agents on the host, or lower cluster.services.agents)",
      who, agents, demand, dpus, dpu, dpus == 1 ? "" : "s", dpus == 1 ? "has" : "have", capacity);
}

void add_agents(plan::HostWork& work) {
  const auto& hosts = work.hosts();
  auto& routes = work.routes();
  const auto& host = work.host();
  if (host.agent_cores <= 0)
    return;
  const bool on_arm = host.agent_site == offload::Site::dpu_arm;
  // Agents run on every host operating system: a server's, or each tray's of a rack, beside that
  // host's own DPUs.
  const auto& topo = hosts.topology();
  const int dpus = topo.layout().node.nics / hosts.trays();
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
  // Where the trays' storage ports are DPUs that run agents, the agents run there (front-end DPUs).
  const auto* frontend = hosts.hardware().frontend_dpu(offload::Function::agents);
  const bool on_frontend = on_arm && frontend != nullptr && hosts.has_frontend_arm();
  const auto& device = on_frontend ? *frontend : hosts.hardware().nic;
  if (on_arm && host.scenario != nullptr) {
    // With calibrated rates the demand may differ from the catalog's that the scenario check saw.
    const double demand = host.agent_cores * host.arm_cores_per_host_core;
    const int devices = on_frontend ? 1 : dpus;
    const int capacity = device.arm->cores.value * devices;
    if (demand > capacity)
      throw InputError(Location{host.scenario->file, 0, 0}, "cluster.services.agents",
                       overflow_message("with the calibration profile's Arm cores and rates, this variant",
                                        host.agent_cores, demand, capacity, device.name, devices));
  }
  for (int n = 0; n < hosts.nodes(); ++n)
    for (int tray = 0; tray < hosts.trays(); ++tray) {
      if (on_frontend) {
        spawn(hosts.frontend_arm(n, tray), host.agent_cores * host.arm_cores_per_host_core, n);
      } else if (on_arm) {
        for (int k = 0; k < topo.layout().node.nics; ++k)
          if (topo.tray_of_nic(k) == tray)
            spawn(hosts.arm(n, k), host.agent_cores * host.arm_cores_per_host_core / dpus, n);
      } else {
        spawn(hosts.cpu(n, tray), host.agent_cores, n);
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
             "host cores of infrastructure agents (telemetry, monitoring...) per host: a server, or each "
             "tray of a rack"}};
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
    const int trays = node->trays.value;
    const int sockets = node->cpu_sockets.value / trays;
    const int cores = cat.cpu(node->cpu)->cores.value * sockets;
    if (agents > cores)
      out.push_back({"cluster.services.agents",
                     fmt::format("{:g} agent cores exceed the {} host cores of a {}{} ({} x {})", agents,
                                 cores, trays > 1 ? "tray of a " : "", s.cluster.node, sockets, node->cpu)});
    // On the Arm cores the agents need as many cores as do the work of theirs: they must fit. Where
    // each tray's storage port is a DPU that runs agents, they run on it (one per tray).
    const bool frontend = scenario::requirements(s, cat).on_frontend(offload::Function::agents);
    const auto* dpu = frontend ? cat.nic(s.cluster.storage.node_nic)
                               : (s.cluster.dpu.empty() ? nullptr : cat.nic(s.cluster.dpu));
    if (agents <= 0 || dpu == nullptr || !dpu->arm)
      return;
    const double demand = arm_demand(agents, cat.cpu(node->cpu)->tcp_rx_rate_per_core.value, *dpu->arm);
    const int devices = frontend ? 1 : node->nics.value / trays;
    const int capacity = dpu->arm->cores.value * devices;
    for (std::size_t i = 0; i < s.variants.size(); ++i)
      if ((frontend || s.variants[i].on_dpu) &&
          s.variants[i].placement[offload::Function::agents] == offload::Site::dpu_arm && demand > capacity)
        out.push_back({i == 0 ? std::string("offload.baseline") : fmt::format("offload.variants[{}]", i - 1),
                       overflow_message(fmt::format("variant \"{}\"", s.variants[i].name), agents, demand,
                                        capacity, dpu->name, devices)});
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
