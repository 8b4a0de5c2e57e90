// The estimator's input pipeline: how long one load of a replica's loader takes (docs/models/estimator.md).
#pragma once

#include "sim/datapath/data_path.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/scenario.hpp"

namespace dpusim::estimate {

/// One load of a replica's input pipeline (the scenario has a `data:` section): the longest of the
/// storage server's media and port (shared by the loaders reading from it at once), the node's NIC, the
/// decoding workers (one core each, sharing the host's cores with the node's other loaders) and the
/// storage client (kernel TCP over the node's connections, or SNAP's threads on the DPU's Arm cores).
double input_load_s(const scenario::Scenario& s, const scenario::Hardware& hw, const datapath::DataPath& path,
                    const topology::ClusterLayout& layout);

} // namespace dpusim::estimate
