// Hierarchical all-reduce, reduce-scatter and all-gather: complete ring collectives in sequence, as a
// framework composes them from NCCL calls — (1) a ring reduce-scatter inside every node over NVLink,
// (2) a ring all-reduce of each GPU's S/k shard with the same GPU of every other node (its own rail,
// its own NIC), (3) a ring all-gather inside every node. A reduce-scatter is (1) then a rail
// reduce-scatter of S/k; an all-gather a rail all-gather of S/k then (3). See
// docs/models/collectives.md, "Hierarchical".
#pragma once

#include "models/collectives/collective.hpp"

#include <optional>

namespace dpusim::collectives {

/// One ring collective of a phase (see ring.hpp).
struct RingCall {
  CollectiveKind kind = CollectiveKind::all_reduce;
  std::vector<int> gpus; // ascending
  double bytes = 0;      // per rank
};

/// Rings that run at the same time, independently: inside every node (one per node, in node order) or
/// along every rail (member i of every node, i ascending).
using HierarchicalPhase = std::vector<RingCall>;

struct HierarchicalPlan {
  std::vector<HierarchicalPhase> phases; // one after another
  std::size_t per_node = 0;              // k, the members of every node
  int nodes = 0;                         // m
};

/// The hierarchical collective of `bytes` per rank over `gpus`; nullopt where it does not apply: an
/// all-to-all, fewer than two nodes, nodes with different numbers of members or fewer than two, or no
/// bytes (the ring is used instead).
std::optional<HierarchicalPlan> hierarchical(CollectiveKind kind, std::vector<int> gpus, double bytes,
                                             int gpus_per_node);

} // namespace dpusim::collectives
