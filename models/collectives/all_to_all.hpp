// All-to-all: every rank sends S/N to every other rank (its own share stays). Inside a node the sends
// go directly (over NVLink). Across nodes, with forwarding (GPUDirect RDMA; NCCL's PXN), a GPU hands
// the data for a remote GPU on another rail to the local GPU on that rail, which sends it through its
// own NIC, so that the network traffic is rail-aligned; without (staged host TCP) the source sends it.
// See docs/models/collectives.md, "All-to-all".
#pragma once

#include "models/collectives/collective.hpp"

namespace dpusim::collectives {

struct AllToAllPlan {
  /// Per source node (in node order), one per run of destination nodes (`parts_per_node`): its hops
  /// with their payloads summed per (src, dst) pair, in ascending (src, dst) order. Each part is one
  /// activity whose flows move at its slowest flow's pace; SimGrid's solver slows with the number of
  /// activities far more than with their flows, hence runs of nodes rather than pairs by default.
  std::vector<Channel> parts;
  int nodes = 0;
};

/// The all-to-all of `bytes` per rank over `gpus`. `rail_of_local[i]` is the NIC (rail) of a node's
/// GPU i (`gpus_per_node` entries); `forward` lets a GPU forward through the GPU of the destination's
/// rail. `shares`, where given, is the part of its bytes every rank sends to the i-th of `gpus` (one
/// per rank; an expert-parallel dispatch under uneven routing: docs/models/workload.md); empty: bytes/N
/// to each. `parts_per_node` (at least 1, at most the other nodes): each node's sends split by
/// destination node into that many runs of consecutive nodes (counted on from the node itself; the
/// sends inside the node go with the first). No parts for fewer than two ranks or no bytes.
AllToAllPlan all_to_all(std::vector<int> gpus, double bytes, int gpus_per_node,
                        const std::vector<int>& rail_of_local, bool forward,
                        const std::vector<double>& shares = {}, int parts_per_node = 1);

} // namespace dpusim::collectives
