#include "sim/topology/fabric_bill.hpp"

#include <cmath>

namespace dpusim::topology {

int spines_for(int leaves, int uplinks, int radix) {
  for (int s = 1; s < uplinks; ++s)
    if (static_cast<long long>(leaves) * ((uplinks + s - 1) / s) <= radix)
      return s;
  return uplinks;
}

FabricBill fabric_bill(const ClusterLayout& layout) {
  const FabricShape shape = fabric_shape(layout);
  FabricBill b;
  b.leaves = shape.leaves;
  b.host_links = layout.nodes * layout.node.nics;
  if (shape.leaves < 2)
    return b;
  // Every leaf's up-links are cabled whether or not its down ports are all populated (a partial group of
  // nodes leaves its ports free for the nodes that complete it).
  b.leaf_links = shape.leaves * shape.uplinks;
  if (shape.tiers == 2) {
    b.spines = spines_for(shape.leaves, shape.uplinks, layout.fabric.switch_radix);
    return b;
  }
  // Three tiers: a pod's spine holds one link of each of its leaves (the pod is as large as a spine's
  // down ports allow), and a plane's cores hold the up-links of that spine in every pod.
  b.spines = shape.spines * shape.pods;
  b.cores = shape.cores_per_plane * shape.spines;
  b.core_links = static_cast<int>(
      std::lround(static_cast<double>(b.spines) * shape.cores_per_plane * shape.links_per_core));
  return b;
}

} // namespace dpusim::topology
