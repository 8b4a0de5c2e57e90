// The topology layout a scenario describes, from its catalog parts.
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/layout.hpp"

namespace dpusim::scenario {

/// Whether the fabric routes this device's traffic adaptively: the scenario asks for it, the switch can,
/// and the device places out-of-order packets on the switch's link layer (else its traffic is hashed).
bool adaptive_routing(const ClusterConfig& cluster, const catalog::NicSpec& nic,
                      const catalog::SwitchSpec& fabric_switch);

/// The layout one variant's topology is built from; `storage_nic`: the device of each tray's storage port
/// on a separate storage fabric (Hardware::storage_nic), if the scenario names one.
topology::ClusterLayout cluster_layout(const ClusterConfig& cluster, const catalog::NodeSpec& node,
                                       const catalog::GpuSpec& gpu, const catalog::NicSpec& nic,
                                       const catalog::SwitchSpec& fabric_switch,
                                       const catalog::NicSpec* storage_nic = nullptr);

} // namespace dpusim::scenario
