// NCCL's ring: ranks ordered by node, one ring per NIC a node contributes when the group spans nodes
// (each entering a node at another member, so that each leaves it through another GPU and NIC), the
// data split evenly over the rings; each hop carries 2(N-1)/N of a ring's share for an all-reduce,
// (N-1)/N for a reduce-scatter or an all-gather. A broadcast or a reduce runs on the same rings as a
// pipelined chain from (to) the root, the group's first rank: N-1 hops of the ring's share each, the hop
// back to the root left out. See docs/models/collectives.md, "Ring".
#pragma once

#include "models/collectives/collective.hpp"

namespace dpusim::collectives {

struct RingPlan {
  int rings = 0; // channels: one per NIC across nodes (nic_channels), one inside a node
  int steps = 0; // 2(N-1) for an all-reduce, N-1 otherwise
  /// Of those, the steps a chunk crosses from node to node on its way round (NCCL's latency model counts
  /// them so): 2(m-1) of an all-reduce over m nodes, m-1 otherwise, none inside one node.
  int inter_node_steps = 0;
  double hop_bytes = 0;          // what each hop of each ring carries
  int nodes = 0;                 // nodes the group spans
  std::vector<Channel> channels; // per ring, its N hops in ring order (the last back to the first rank;
                                 // a chain's N-1, from the root on)
};

/// The ring collective of `bytes` per rank over `gpus`. No channels (and no rings or steps) for fewer
/// than two ranks or no bytes. `kind` is not an all-to-all (it has no ring form).
RingPlan ring(CollectiveKind kind, std::vector<int> gpus, double bytes, NodeShape node);

/// Whether the NVLink hops of the ring can set its pace, so that they must be simulated: always inside
/// one node; across nodes, each GPU sends one network hop and rings-1 NVLink hops, which never set the
/// pace when NVLink (`nvlink_rate`, bytes/s per GPU at the ring's protocol efficiency) is clearly faster
/// for them than the NIC (`nic_rate`, likewise) for its one hop.
bool ring_nvlink_hops_matter(const RingPlan& plan, NodeShape node, double nvlink_rate, double nic_rate);

} // namespace dpusim::collectives
