// What a point costs beyond its step time: goodput under failures (checkpoints at Young's interval, lost
// work, restarts), power and energy, and cost per run; and the closed forms they rest on
// (docs/planner.md, "Goodput, power and cost").
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/scenario.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::planner {

/// goodput: in a plan.
struct GoodputSpec {
  double restart_s = 0; // from an interruption to training again (the user's figure)
  // Interruptions per unit per second replacing the catalog's, where the plan gives them.
  std::optional<double> gpu_rate, device_rate, node_rate;
};

/// power: in a plan.
struct PowerSpec {
  double pue = 1;                     // facility power over IT power
  std::optional<double> usd_per_kwh;  // energy price
  std::optional<double> switch_watts; // per fabric switch (the catalog has no sourced figure)
};

/// costs: in a plan, each in US dollars; capex amortised over `life_s`, or a cloud price per GPU-hour.
struct CostSpec {
  std::optional<double> node, nic, dpu, network_switch, link;
  std::optional<double> life_s;
  std::optional<double> gpu_hour;
  // What a host core busy with the job would earn sold to other tenants, per core-hour: the run is
  // charged for its busy cores, so cores that offload frees lower its cost.
  std::optional<double> host_core_hour;
  // What a host core costs in the node's price: a stated assumption that a node can be bought with only
  // the host cores a point keeps busy (fewer or smaller CPUs), each core beyond them taken off `node`.
  std::optional<double> host_core;
  // A node price per node type (costs.node as a mapping), where a plan's points differ in their node.
  std::map<std::string, double, std::less<>> node_by_type;

  /// The prices of a point on nodes of type `node`: that type's price as `node` where the plan gives one
  /// per type.
  [[nodiscard]] CostSpec for_node(std::string_view node) const;
};

// --- Closed forms ----------------------------------------------------------------------------------

/// Young's optimal checkpoint interval, sqrt(2 delta M), for a write of `delta_s` and a mean time between
/// interruptions `mtbi_s` (compute time between checkpoints).
double young_interval(double delta_s, double mtbi_s);

struct Goodput {
  double interval_s = 0;    // compute time between checkpoints
  double wall_s = 0;        // expected time to train with failures (infinite when it never ends)
  double interruptions = 0; // expected over the run
  double fraction = 0;      // work_s / wall_s
};
/// Expected wall time to do `work_s` of compute with a checkpoint of `delta_s` every `interval_s` of compute,
/// interruptions every `mtbi_s` on average, each losing half an interval and `restart_s`:
/// W (1 + delta/tau) / (1 - (R + tau/2) / M); infinite where interruptions take all the time.
double wall_time(double work_s, double delta_s, double interval_s, double mtbi_s, double restart_s);

/// The first-order model: T = W (1 + delta/tau) / (1 - (R + tau/2) / M), with tau = max(Young's interval,
/// one step): each interruption loses half an interval of work and the restart time R.
Goodput goodput(double work_s, double delta_s, double mtbi_s, double restart_s, double step_s);

/// One GPU's mean power over a step: `tdp_w` while its kernels run (`busy`, a share of the step in
/// 0..1) and `idle_w` while it waits.
double gpu_power_w(double tdp_w, double idle_w, double busy);

/// The fabric's optics: a transceiver at each end of every link, `device_end_w` and `switch_end_w` on
/// each of the `host_links` from a NIC or DPU to its leaf, `switch_end_w` at both ends of each of the
/// `switch_links` between switches.
double optics_power_w(double host_links, double switch_links, double device_end_w, double switch_end_w);

/// Host CPU power: the busy cores' share of the sockets' TDP (no idle floor: none is cited).
double host_power_w(double tdp_w_total, int cores_total, double busy_cores);

/// Host cores a node need not have: those beyond the `busy_cores` a point keeps busy, rounded up to whole
/// cores, of the node's `cores_total` (never below none).
double host_cores_not_bought(int cores_total, double busy_cores);

/// The DPU price premium over the NIC at which a DPU run costs what the NIC run does, with capex
/// amortised over `life_s`. A DPU run's cost grows by n T_dpu / L per dollar of its devices' price, so
/// x = p + (C_nic - C_dpu) L / (n T_dpu), where p is the premium the DPU run was priced at (the plan's DPU
/// price less its NIC price), C_nic and C_dpu the runs' costs, n the devices and T_dpu the DPU run's time.
/// Where the clusters differ only in their devices this is (C_nic - O_dpu) L / (n T_dpu) - K_nic / n, with
/// O_dpu the DPU run's running cost and K_nic the NIC cluster's capex; it also holds where they differ in
/// what else they buy (host cores not bought).
double break_even_premium(double cost_nic, double cost_dpu, double premium_priced, double time_dpu_s,
                          double devices, double life_s);
/// With a cloud price: the extra per device-hour at which the DPU run costs what the NIC run does.
double break_even_per_device_hour(double cost_nic, double cost_dpu, double time_dpu_s, double devices);

// --- Per point -----------------------------------------------------------------------------------

/// What the planner counts of a simulated point from its scenario and the catalog, added to its result as
/// values (their names begin "plan.") so that they travel with it from the simulation process.
/// Throws InputError (key "goodput") when goodput needs an interruption rate the catalog lacks.
void add_point_facts(const scenario::Scenario& s, const catalog::Catalog& cat,
                     const std::optional<GoodputSpec>& goodput, report::VariantResult& r);

/// The planner's figures of a point, from its result's metrics and facts.
struct PointEconomics {
  std::string device;      // the NIC or DPU carrying inter-node traffic
  std::string device_kind; // nic | dpu
  int devices = 0;         // in the cluster
  double switches = 0;     // fabric switches, as the topology builds them
  double links = 0;        // NIC ports, leaf up-links and spine-core links
  // Goodput (with a goodput section)
  std::optional<double> checkpoint_write_s, mtbi_h, interval_s, interruptions, fraction, wall_days;
  // Power (with a power section): facility power and energy per run
  std::optional<double> power_kw, energy_mwh, energy_cost_usd;
  // Cost (with a costs section)
  std::optional<double> capex_usd, cost_usd;
};
PointEconomics point_economics(const report::VariantResult& r, double train_tokens, double days_to_train,
                               const std::optional<GoodputSpec>& goodput,
                               const std::optional<PowerSpec>& power, const std::optional<CostSpec>& costs);

} // namespace dpusim::planner
