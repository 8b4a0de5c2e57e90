// The fabric a builder buys for a cluster: its switches and cables, counted from the same shape the
// simulated graph is built from (fabric_shape), with spines sized to the leaves they join.
#pragma once

#include "sim/topology/layout.hpp"

namespace dpusim::topology {

/// Switches and cables of a cluster's compute fabric (docs/planner.md, "The fabric's bill").
struct FabricBill {
  int leaves = 0;
  int spines = 0; // every pod's
  int cores = 0;
  int host_links = 0; // NIC (or DPU) port to leaf
  int leaf_links = 0; // leaf to spine
  int core_links = 0; // spine to core
  [[nodiscard]] int switches() const { return leaves + spines + cores; }
};

/// Two tiers: every leaf cabled with its full up-links (the ports a full leaf needs at the stated
/// oversubscription, populated or not), spread evenly over the fewest spines whose ports hold them:
/// the smallest S with leaves x ceil(up-links / S) <= radix. Three tiers: a spine per leaf up-link in
/// each pod, and the cores that hold the spines' up-links (as fabric_shape lays them out). One leaf:
/// that switch alone. Throws std::invalid_argument where fabric_shape does.
FabricBill fabric_bill(const ClusterLayout& layout);

/// The fewest spines that hold `leaves` leaves of `uplinks` up-links each, every leaf linked to every
/// spine with as even a share of its up-links as they divide into: the smallest S in 1..uplinks with
/// leaves x ceil(uplinks / S) <= radix (uplinks where none does).
int spines_for(int leaves, int uplinks, int radix);

} // namespace dpusim::topology
