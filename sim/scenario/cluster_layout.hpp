// The topology layout a scenario describes, from its catalog parts.
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/topology.hpp"

namespace dpusim::scenario {

topology::ClusterLayout cluster_layout(const ClusterConfig& cluster, const catalog::NodeSpec& node,
                                       const catalog::GpuSpec& gpu, const catalog::NicSpec& nic,
                                       const catalog::SwitchSpec& fabric_switch);

} // namespace dpusim::scenario
