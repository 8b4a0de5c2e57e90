// What-if faults (faults.cpp): the settings a scenario's faults: section gives.
#pragma once

#include "sim/report/variant_result.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/layout.hpp"

#include <vector>

namespace dpusim::model {

/// Nodes whose GPUs run slower than the catalog's (thermal or power throttling, a bad part): each of
/// their kernels takes 1 / `slow_speed` as long.
struct FaultsConfig {
  std::vector<int> slow_nodes; // node indices, 0-based
  double slow_speed = 1.0;     // in (0, 1]
  /// Leaf-spine links that run below their rate (a bad optic or cable, a port renegotiated down): both
  /// directions between `leaf` and `spine` of its pod (every spine when `spine` is -1) carry `rate` of
  /// their bandwidth.
  struct DegradedLink {
    int leaf = 0;
    int spine = -1;
    double rate = 1.0;
  };
  std::vector<DegradedLink> degraded_links;
  /// Spines that are down (index within the leaf/spine tier; of pod 0 on three tiers) and leaf-spine
  /// links that are down (both directions): routes go around them and ECMP spreads over what remains.
  std::vector<int> failed_spines;
  std::vector<DegradedLink> failed_links; // rate unused; spine required
  /// Leaf-spine links that go down for `down_s` every `every_s` (both directions; every spine of the
  /// leaf's pod when `spine` is -1): flows over them stall meanwhile, routes stay (a flap shorter than the
  /// fabric takes to route around it). Where in the period an iteration starts is drawn from the seed.
  struct FlappingLink {
    int leaf = 0;
    int spine = -1;
    double down_s = 0;
    double every_s = 0;
  };
  std::vector<FlappingLink> flapping_links;
};

/// The scenario puts slow nodes in the cluster (their cost can be simulated on the same platform).
bool has_slow_nodes(const scenario::Scenario& s);
/// Records what the slow nodes cost per step (fault_cost_s): the step with them minus the step of the
/// same iteration without them on the same platform, both noise-free or both with the same draws.
void add_fault_cost(double step_s, double healthy_step_s, bool noisy, report::VariantResult& r);

/// The vertices and edges `s`'s faults take down in `topo`.
topology::Failures failures_of(const scenario::Scenario& s, const topology::Topology& topo);

} // namespace dpusim::model
