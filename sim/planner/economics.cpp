#include "sim/planner/economics.hpp"

#include "models/base/input_error.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/topology/fabric_bill.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

namespace dpusim::planner {

CostSpec CostSpec::for_node(std::string_view node_type) const {
  CostSpec c = *this;
  if (const auto it = node_by_type.find(node_type); it != node_by_type.end())
    c.node = it->second;
  return c;
}

double young_interval(double delta_s, double mtbi_s) {
  return std::sqrt(2.0 * delta_s * mtbi_s);
}

double wall_time(double work_s, double delta_s, double interval_s, double mtbi_s, double restart_s) {
  if (!std::isfinite(mtbi_s))
    return work_s * (1.0 + (interval_s > 0 ? delta_s / interval_s : 0.0));
  const double lost = (restart_s + interval_s / 2.0) / mtbi_s; // share of wall time lost to interruptions
  if (lost >= 1.0)
    return std::numeric_limits<double>::infinity();
  return work_s * (1.0 + (interval_s > 0 ? delta_s / interval_s : 0.0)) / (1.0 - lost);
}

Goodput goodput(double work_s, double delta_s, double mtbi_s, double restart_s, double step_s) {
  Goodput g;
  // Without interruptions no checkpoint is needed: the interval is unbounded and costs nothing.
  g.interval_s = std::isfinite(mtbi_s) ? std::max(young_interval(delta_s, mtbi_s), step_s)
                                       : std::numeric_limits<double>::infinity();
  g.wall_s = wall_time(work_s, delta_s, g.interval_s, mtbi_s, restart_s);
  g.interruptions = std::isfinite(mtbi_s) ? g.wall_s / mtbi_s : 0.0;
  g.fraction = std::isfinite(g.wall_s) && g.wall_s > 0 ? work_s / g.wall_s : 0.0;
  return g;
}

double gpu_power_w(double tdp_w, double idle_w, double busy) {
  const double idle = std::clamp(idle_w, 0.0, tdp_w);
  return idle + (tdp_w - idle) * std::clamp(busy, 0.0, 1.0);
}

double optics_power_w(double host_links, double switch_links, double device_end_w, double switch_end_w) {
  return host_links * (device_end_w + switch_end_w) + switch_links * 2 * switch_end_w;
}

double host_power_w(double tdp_w_total, int cores_total, double busy_cores) {
  if (cores_total <= 0)
    return 0;
  return tdp_w_total * std::clamp(busy_cores / cores_total, 0.0, 1.0);
}

double host_cores_not_bought(int cores_total, double busy_cores) {
  if (cores_total <= 0)
    return 0;
  // A hair above a whole core (the solver's rounding) is that core, not the next.
  const double kept = std::ceil(std::max(0.0, busy_cores) - 1e-9);
  return std::max(0.0, cores_total - kept);
}

double break_even_premium(double cost_nic, double cost_dpu, double premium_priced, double time_dpu_s,
                          double devices, double life_s) {
  return premium_priced + (cost_nic - cost_dpu) * life_s / (devices * time_dpu_s);
}

double break_even_per_device_hour(double cost_nic, double cost_dpu, double time_dpu_s, double devices) {
  return (cost_nic - cost_dpu) / (devices * time_dpu_s / 3600.0);
}

void add_point_facts(const scenario::Scenario& s, const catalog::Catalog& cat,
                     const std::optional<GoodputSpec>& goodput, report::VariantResult& r) {
  const auto* node = cat.node(s.cluster.node);
  if (node == nullptr)
    throw std::logic_error("a simulated point's node is not in the catalog");
  const auto* gpu = cat.gpu(node->gpu);
  const auto* cpu = cat.cpu(node->cpu);
  const std::string nic_name = s.cluster.nic.empty() ? node->nic : s.cluster.nic;
  const auto* device = cat.nic(r.on_dpu ? s.cluster.dpu : nic_name);
  const auto* nic = cat.nic(nic_name);
  const auto* sw = cat.network_switch(s.cluster.fabric.switch_model);
  if (gpu == nullptr || cpu == nullptr || device == nullptr || nic == nullptr || sw == nullptr)
    throw std::logic_error("a simulated point's parts are not in the catalog");
  const int nodes = r.nodes;
  const int devices = node->nics.value * nodes;
  r.set_value("plan.devices", devices);
  r.set_value("plan.device_is_dpu", r.on_dpu ? 1 : 0);
  // A GPU draws its TDP while its kernels run and its idle power while it waits (exposed communication,
  // pipeline bubbles, stalls); without a cited idle figure, TDP throughout. The busiest GPU's share of
  // the step stands for all (an upper bound where stages are uneven).
  const double busy =
      r.metrics.step_time_s > 0 ? std::clamp(r.metrics.compute_s / r.metrics.step_time_s, 0.0, 1.0) : 1.0;
  const double tdp_w = gpu->tdp.value.si();
  const double idle_w = gpu->idle_power ? gpu->idle_power->value.si() : tdp_w;
  r.set_value("plan.gpu_power_w", gpu_power_w(tdp_w, idle_w, busy) * r.gpus);
  r.set_value("plan.gpu_busy", busy);
  r.set_value("plan.device_power_w", device->power.value.si() * devices);
  r.set_value("plan.host_tdp_w", cpu->tdp ? cpu->tdp->value.si() * node->cpu_sockets.value : 0);
  r.set_value("plan.host_tdp_known", cpu->tdp ? 1 : 0);
  r.set_value("plan.host_cores", cpu->cores.value * node->cpu_sockets.value);
  // The rest of each node (memory, fans, NVSwitches, storage, board, the CPUs' idle floor), where its
  // catalog entry gives it: drawn whether the GPUs compute or wait.
  r.set_value("plan.platform_power_w", node->platform_power ? node->platform_power->value.si() * nodes : 0.0);

  // The fabric the point's cluster is built on, as its builder buys it: switches and cables.
  // A fabric the user has instead: all its switches, whatever the point uses of them (the scenario's
  // check refused a point that needs more); the point's own cables.
  const auto bill = topology::fabric_bill(scenario::cluster_layout(s.cluster, *node, *gpu, *nic, *sw));
  const double host_links = static_cast<double>(devices);
  const double leaf_links = bill.leaf_links;
  const double core_links = bill.core_links;
  const auto& owned = s.cluster.fabric.owned;
  r.set_value("plan.switches", owned ? owned->switches() : bill.switches());
  r.set_value("plan.links", host_links + leaf_links + core_links);
  // Every link optical: a transceiver at each end, the device's in its port and a switch port's share
  // of its cage's optics at the link's rate (docs/planner.md); an end the catalog has no figure for
  // counts nothing.
  auto switch_end = [&](double rate) {
    return sw->optics_power && sw->port_speed.value.si() > 0
               ? sw->optics_power->value.si() * rate / sw->port_speed.value.si()
               : 0.0;
  };
  const double device_end = device->optics_power ? device->optics_power->value.si() : 0.0;
  const double host_rate = std::min(device->line_rate.value.si(), s.cluster.fabric.link.si());
  r.set_value("plan.optics_power_w",
              optics_power_w(host_links, 0, device_end, switch_end(host_rate)) +
                  optics_power_w(0, leaf_links + core_links, 0, switch_end(s.cluster.fabric.link.si())));

  if (!goodput)
    return;
  // The job's interruptions per second: each component's rate times its count in the job.
  auto rate = [&](const std::optional<double>& planned,
                  const std::optional<catalog::InterruptionRate>& listed, const std::string& what) {
    if (planned)
      return *planned;
    if (!listed)
      throw InputError(Location{}, "goodput",
                       fmt::format("the catalog gives no interruption rate for {}: add one to its entry or "
                                   "give goodput.rates",
                                   what));
    return listed->per_unit_per_s();
  };
  double per_s = r.gpus * rate(goodput->gpu_rate, gpu->interruptions, "GPU " + gpu->name);
  per_s += devices * rate(goodput->device_rate, device->interruptions, "device " + device->name);
  if (goodput->node_rate) {
    per_s += nodes * *goodput->node_rate;
  } else {
    for (const auto* part :
         {&node->interruptions, &node->network_interruptions, &node->software_interruptions})
      per_s += nodes * rate(std::nullopt, *part, "node " + node->name);
  }
  r.set_value("plan.interruptions_per_s", per_s);
}

PointEconomics point_economics(const report::VariantResult& r, double train_tokens, double days_to_train,
                               const std::optional<GoodputSpec>& goodput,
                               const std::optional<PowerSpec>& power, const std::optional<CostSpec>& costs) {
  PointEconomics e;
  e.device = r.device;
  e.device_kind = r.value("plan.device_is_dpu") > 0 ? "dpu" : "nic";
  e.devices = static_cast<int>(r.value("plan.devices"));
  e.switches = r.value("plan.switches");
  e.links = r.value("plan.links");
  const auto& m = r.metrics;
  double time_s = days_to_train * 86400.0;
  if (goodput) {
    const double delta = std::max(0.0, m.checkpoint_step_s - m.step_time_s);
    const double per_s = r.value("plan.interruptions_per_s");
    const double mtbi = per_s > 0 ? 1.0 / per_s : std::numeric_limits<double>::infinity();
    const double work = m.tokens_per_s > 0 ? train_tokens / m.tokens_per_s : 0;
    const auto g = planner::goodput(work, delta, mtbi, goodput->restart_s, m.step_time_s);
    e.checkpoint_write_s = delta;
    e.mtbi_h = mtbi / 3600.0;
    e.interval_s = g.interval_s;
    e.interruptions = g.interruptions;
    e.fraction = g.fraction;
    e.wall_days = g.wall_s / 86400.0;
    time_s = g.wall_s;
  }
  double energy_cost = 0;
  if (power) {
    const double host =
        r.nodes * host_power_w(r.value("plan.host_tdp_w"), static_cast<int>(r.value("plan.host_cores")),
                               m.host_cpu_busy_cores);
    const double it_w = r.value("plan.gpu_power_w") + r.value("plan.device_power_w") + host +
                        r.value("plan.platform_power_w") + r.value("plan.optics_power_w") +
                        r.value("plan.switches") * power->switch_watts.value_or(0);
    const double facility_w = it_w * power->pue;
    e.power_kw = facility_w / 1e3;
    e.energy_mwh = facility_w * time_s / 3.6e9;
    if (power->usd_per_kwh) {
      energy_cost = *e.energy_mwh * 1e3 * *power->usd_per_kwh;
      e.energy_cost_usd = energy_cost;
    }
  }
  if (costs) {
    // Busy host cores at what they would earn sold to other tenants.
    const double cores =
        r.nodes * m.host_cpu_busy_cores * costs->host_core_hour.value_or(0) * time_s / 3600.0;
    if (costs->gpu_hour) {
      e.cost_usd = r.gpus * *costs->gpu_hour * time_s / 3600.0 + cores;
    } else {
      const double device_price = (r.value("plan.device_is_dpu") > 0 ? costs->dpu : costs->nic).value_or(0);
      // Fewer or smaller host CPUs, where the plan prices a host core: the cores the point never keeps
      // busy at once (its peak where simulated; an estimate has only the step's mean).
      const double kept = std::max(m.host_cpu_peak_cores, m.host_cpu_busy_cores);
      const double cores_saved =
          costs->host_core ? r.nodes * *costs->host_core *
                                 host_cores_not_bought(static_cast<int>(r.value("plan.host_cores")), kept)
                           : 0.0;
      const double capex = r.nodes * costs->node.value_or(0) - cores_saved + e.devices * device_price +
                           r.value("plan.switches") * costs->network_switch.value_or(0) +
                           r.value("plan.links") * costs->link.value_or(0);
      e.capex_usd = capex;
      e.cost_usd = capex * time_s / costs->life_s.value_or(1) + energy_cost + cores;
    }
  }
  return e;
}

} // namespace dpusim::planner
