// The two fabric layouts a scenario chooses between, and how its switches route; apart from topology.hpp so
// that the scenario's types need no graph library.
#pragma once

#include <string_view>

namespace dpusim::topology {

enum class FabricKind { fat_tree, rail_optimized };
std::string_view fabric_kind_name(FabricKind k);

/// ecmp: a switch hashes each connection onto one of its equal-cost ports; adaptive: it sends each packet
/// over the least loaded of them (the receiving NIC places packets arriving out of order); pinned: it
/// sends a destination's traffic up the port of the destination's index on its leaf, modulo the ports
/// (path pinning, docs/models/routing.md).
enum class Routing { ecmp, adaptive, pinned };

} // namespace dpusim::topology
