#include "sim/estimate/measured_latency.hpp"

#include "models/collectives/nccl_tuner.hpp"
#include "sim/datapath/data_path.hpp"
#include "sim/estimate/comm_costs.hpp"
#include "sim/model/registry.hpp"
#include "sim/scenario/cluster_layout.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <string>
#include <vector>

namespace dpusim::estimate {
namespace {

constexpr std::string_view kLatencyKey = "collective.allreduce_latency";
/// nccl-tests' smallest size (`-b 8`): what NCCL runs where an alpha-beta fit's intercept is measured.
constexpr double kProbeBytes = 8;
/// The step latency shift whose effect counts the steps NCCL's choice waits on.
constexpr double kShiftS = 1e-6;

enum class StepKind { network, nvlink };

/// The step latencies of `kind` that `protocol` pays: across nodes a ring's and a tree's (a ring of one
/// rank a node pays the tree's); empty where the entry lacks the protocol.
std::vector<catalog::Cited<units::Seconds>*> steps_of(catalog::CollectiveSpec& c,
                                                      catalog::NcclProtocol protocol, StepKind kind) {
  const auto pick = [kind](auto& costs) -> std::vector<catalog::Cited<units::Seconds>*> {
    if (kind == StepKind::nvlink)
      return {&costs.step_latency_nvlink};
    return {&costs.step_latency_network, &costs.tree_step_latency_network};
  };
  switch (protocol) {
  case catalog::NcclProtocol::simple:
    return pick(c);
  case catalog::NcclProtocol::ll:
    return c.ll ? pick(*c.ll) : std::vector<catalog::Cited<units::Seconds>*>{};
  case catalog::NcclProtocol::ll128:
    return c.ll128 ? pick(*c.ll128) : std::vector<catalog::Cited<units::Seconds>*>{};
  }
  return {};
}

struct SmallAllReduce {
  double latency_s = 0;
  plan::NcclChoice choice;
};

/// What the simulation charges the all-reduce NCCL picks at small sizes over `group`: its latency, as
/// the estimator's closed forms give it (the lowering's step latencies and routes).
SmallAllReduce small_all_reduce(const scenario::Hardware& hw, const scenario::Scenario& s,
                                const offload::Variant& variant, const topology::ClusterLayout& layout,
                                const std::vector<int>& group) {
  const datapath::DataPath path(variant, s.cluster.services, hw);
  const NcclCommCosts costs(layout, hw, path, s.cluster.fabric.routing);
  const auto choice = costs.choice(CollectiveKind::all_reduce, group, kProbeBytes);
  return {costs.collective(CollectiveKind::all_reduce, choice, {group}).latency_s, choice};
}

} // namespace

void take_measured_latency(scenario::Hardware& hw, const scenario::Scenario& s,
                           const offload::Variant& variant) {
  const auto& m = hw.measured_allreduce;
  if (!m.latency)
    return;
  const auto entry = std::find_if(hw.calibrated.rbegin(), hw.calibrated.rend(),
                                  [](const scenario::CalibratedValue& cv) { return cv.key == kLatencyKey; });
  const auto refuse = [&](const std::string& why) {
    if (entry == hw.calibrated.rend())
      return;
    entry->used = false;
    entry->note = "not taken: " + why;
  };
  if (m.ranks < 1 || m.nodes < 1) {
    refuse("the profile does not say how many ranks and nodes it was measured on "
           "(collective.allreduce_ranks and .allreduce_nodes: dpusim-calib ingest writes them from the "
           "log's \"#  Rank\" lines)");
    return;
  }
  if (m.ranks < 2 || m.ranks % m.nodes != 0) {
    refuse(
        fmt::format("it was measured on {} rank(s) over {} node(s): the model needs two ranks or more, the "
                    "same number on each node",
                    m.ranks, m.nodes));
    return;
  }
  const int per_node = m.ranks / m.nodes;
  if (per_node > hw.node.gpus.value) {
    refuse(fmt::format("it was measured with {} ranks a node; the scenario's {} has {} GPUs", per_node,
                       hw.node.name, hw.node.gpus.value));
    return;
  }
  const StepKind kind = m.nodes > 1 ? StepKind::network : StepKind::nvlink;
  if (kind == StepKind::network && variant.transport() != offload::Transport::rdma) {
    refuse("a latency measured across nodes is taken for RDMA variants (NCCL runs over the NIC's verbs "
           "where it has them); this variant's collectives run over host TCP, whose latency the "
           "transport's model gives");
    return;
  }
  auto layout = scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch,
                                         hw.storage_nic ? &*hw.storage_nic : nullptr);
  layout.nodes = m.nodes;
  std::vector<int> group;
  for (int n = 0; n < m.nodes; ++n)
    for (int g = 0; g < per_node; ++g)
      group.push_back(n * layout.node.gpus + g);

  const auto model = small_all_reduce(hw, s, variant, layout, group);
  auto shifted = hw;
  const auto shifted_steps = steps_of(shifted.collective, model.choice.protocol, kind);
  if (shifted_steps.empty()) // the tuner picks only protocols the entry has
    return;
  for (auto* step : shifted_steps)
    step->value = units::Seconds::from_si(step->value.si() + kShiftS);
  const double steps =
      (small_all_reduce(shifted, s, variant, layout, group).latency_s - model.latency_s) / kShiftS;
  const std::string what = fmt::format(
      "NCCL's choice at small sizes on {} rank(s) over {} node(s) ({}, {})", m.ranks, m.nodes,
      collectives::tuner_algorithm_name(model.choice.tuned), catalog::protocol_name(model.choice.protocol));
  const char* step_name = kind == StepKind::network ? "network" : "NVLink";
  if (steps < 0.5) {
    refuse(fmt::format("{} waits on no {} step in the model", what, step_name));
    return;
  }
  const double measured = m.latency->value.si();
  const double extra = (measured - model.latency_s) / steps;
  const auto calibrated = steps_of(hw.collective, model.choice.protocol, kind);
  bool held = false;
  std::vector<std::string> moved;
  for (auto* step : calibrated) {
    const double before = step->value.si();
    held = held || before + extra < 0;
    step->value = units::Seconds::from_si(std::max(0.0, before + extra));
    step->cite = {catalog::Citation::Kind::calibration,
                  fmt::format("{:.2f} us + {:.2f} us from collective.allreduce_latency ({})", before * 1e6,
                              extra * 1e6, m.latency->cite.text)};
    moved.push_back(fmt::format("{:.2f} us instead of {:.2f}", step->value.si() * 1e6, before * 1e6));
  }
  if (entry == hw.calibrated.rend())
    return;
  entry->note = fmt::format(
      "each {} step of {} {:+.2f} us on the catalog's ({}){}: {} takes {:.2f} us in the model with the "
      "catalog's, {:.2f} us as measured, over {:.1f} such steps; the other protocols keep the catalog's",
      step_name, catalog::protocol_name(model.choice.protocol), extra * 1e6,
      kind == StepKind::network ? fmt::format("a ring's {}, a tree's {}", moved.at(0), moved.at(1))
                                : moved.at(0),
      held ? ", held at zero" : "", what, model.latency_s * 1e6, measured * 1e6, steps);
}

scenario::Hardware calibrated_hardware(const scenario::Scenario& s, const catalog::Catalog& cat,
                                       const offload::Variant& variant, const calibration::Profile* profile,
                                       const std::string& profile_path, bool take_shape) {
  auto hw = model::hardware_for(s, cat, variant, profile, profile_path, take_shape);
  take_measured_latency(hw, s, variant); // last: it depends on everything hardware_for sets
  return hw;
}

} // namespace dpusim::estimate
