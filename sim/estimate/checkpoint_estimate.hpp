// The planner's estimate of a synchronous checkpoint: how much longer the iteration that writes one
// takes, in closed form from the resources the simulation's writes cross (docs/models/estimator.md).
#pragma once

#include "sim/datapath/data_path.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology.hpp"

namespace dpusim::estimate {

/// Seconds a synchronous checkpoint adds to its iteration: every node writes its GPUs' shards at once
/// (GPU i to server i mod servers), so the write lasts as long as its busiest resource needs — a
/// server's media or port, a node's NIC ports, PCIe up-links or storage port, the DPU's internal PCIe,
/// or the storage client's cores (host or Arm). Throws NotEstimated for an asynchronous checkpoint,
/// whose cost is what the next iteration's traffic does not hide.
double checkpoint_write_s(const scenario::Scenario& s, const scenario::Hardware& hw,
                          const datapath::DataPath& path, const topology::ClusterLayout& layout);

} // namespace dpusim::estimate
