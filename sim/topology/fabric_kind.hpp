// The two fabric layouts a scenario chooses between; apart from topology.hpp so that the scenario's
// types need no graph library.
#pragma once

#include <string_view>

namespace dpusim::topology {

enum class FabricKind { fat_tree, rail_optimized };
std::string_view fabric_kind_name(FabricKind k);

} // namespace dpusim::topology
