// The planner's estimate of a checkpoint's write: how long it lasts, in closed form from the resources the
// simulation's writes cross (docs/models/estimator.md).
#pragma once

#include "sim/datapath/data_path.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/layout.hpp"

namespace dpusim::estimate {

/// Seconds a checkpoint's write lasts alone: every node writes its GPUs' shards at once (GPU i to server
/// i mod servers), so the write lasts as long as its busiest resource needs — a server's media or port, a
/// node's NIC ports, PCIe up-links or storage port, the DPU's internal PCIe, or the storage client's
/// cores (host or Arm). A synchronous checkpoint adds it to its iteration; an asynchronous one, written
/// beside the iteration, makes it last as long as the longer of the two.
double checkpoint_write_s(const scenario::Scenario& s, const scenario::Hardware& hw,
                          const datapath::DataPath& path, const topology::ClusterLayout& layout);

} // namespace dpusim::estimate
