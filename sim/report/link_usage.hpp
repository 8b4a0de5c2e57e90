// What one simulated iteration put on each directed link of the topology: bytes, mean utilisation over
// the step, the fullest use one transfer made of it, and what the congestion analysis found there. The
// rows of `dpusim run --links FILE` and the fabric counters of the trace (docs/reports.md).
#pragma once

#include "models/workload/parallelism.hpp"
#include "sim/engine/task_graph.hpp"
#include "sim/plan/congestion_analysis.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/platform/route_registry.hpp"
#include "sim/report/variant_result.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dpusim::report {

struct LinkUsage {
  std::int32_t edge = 0;       // topology edge id
  std::string link{};          // "src->dst", as the platform names it
  std::string kind{};          // topology::link_kind_name: nvlink, pcie, nic_port, fabric
  std::string tier{};          // "nic-leaf", "leaf-spine", ... or "intra-node"
  double capacity_bps = 0;     // bytes/s per direction, as simulated
  double bytes = 0;            // over the iteration
  double mean_utilisation = 0; // bytes / (capacity x step time)
  double peak_utilisation =
      0; // the largest, over transfer tasks, of their bytes here / (capacity x duration)
  std::optional<plan::PortCongestion> congestion{}; // where the congestion analysis recorded the port
};

/// Reused collectives: a probe graph (simulated alone; its bytes unstretched) and its timings. Each compute
/// task of the plan books the probe's bytes as many times as it reuses it, on its own GPUs (the probe's flows
/// moved from the probe's group to the task's, see link_usage.cpp).
struct Probes {
  const engine::TaskGraph* tp = nullptr;
  const engine::TaskGraph* ep = nullptr;
  const engine::TaskGraph* cp = nullptr;
  std::array<std::vector<engine::TaskTiming>, 3> timings{}; // tp, ep, cp
};

struct LinkInputs {
  const plan::IterationPlan* plan = nullptr;
  const std::vector<engine::TaskTiming>* timings = nullptr; // of plan->graph
  /// Where each transfer's bytes are read, task by task (null: plan->graph): the plan before congestion
  /// stretched its transfers, which it does by scaling their bytes. The probes' graphs likewise.
  const engine::TaskGraph* payload = nullptr;
  double step_s = 0;
  workload::Parallelism parallelism{}; // to place the probes' flows on each task's GPUs
  Probes probes{};
  /// A topology edge's rate in bytes/s as simulated (empty: the topology's bandwidth).
  std::function<double(std::int32_t)> capacity{};
  const plan::CongestionSummary* congestion = nullptr; // with a `congestion:` section
};

/// One row per topology edge that some transfer crosses (NIC encryption engines left out), by mean
/// utilisation, highest first (then by name).
std::vector<LinkUsage> link_usage(const LinkInputs& in, platform::RouteRegistry& routes);

/// The fabric's hottest links for a run's result: the eight NIC-port and switch links of highest mean
/// utilisation, then up to four more that paused most (`rows` as link_usage orders them).
std::vector<HotLink> hot_links(const std::vector<LinkUsage>& rows);

/// The links CSV: link, kind, tier, capacity_gbps, bytes, mean_utilisation, peak_utilisation and, with
/// `congestion`, pause_fraction, ecn_marked, dcqcn_utilisation, queue_kb (empty where not recorded).
std::string render_links_csv(const std::vector<LinkUsage>& rows, bool congestion);

/// A link's load over time: each transfer task on it adds its bytes here / (capacity x duration) while it
/// runs (the iteration's transfers only; the probes' collectives are folded into compute tasks).
struct LinkLoad {
  std::string link{};
  std::vector<std::array<double, 3>> intervals{}; // start s, end s, fraction of capacity
};

/// For the busiest `limit` links of kinds nic_port and fabric among `rows` (in their order), the load of
/// each transfer task of `in.plan` (bytes from `in.payload`).
std::vector<LinkLoad> fabric_loads(const std::vector<LinkUsage>& rows, const LinkInputs& in,
                                   platform::RouteRegistry& routes, std::size_t limit = 32);

} // namespace dpusim::report
