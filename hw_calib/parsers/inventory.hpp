// The machine's inventory from the tools that describe it: the entries a profile's `machine` section
// holds, from an inventory tool's output. Shared by `ingest` (recorded outputs) and `discover`, which
// runs the same tools live.
#pragma once

#include "hw_calib/parsers/format_detection.hpp"

#include <map>
#include <string>
#include <string_view>

namespace dpusim::calib {

/// The machine entries ("rdma.mlx5_0.port1.active_mtu", "gpu.0.closest_nics", ...) of an inventory tool's
/// output (ethtool -k/-i, nvidia-smi --query-gpu and topo -m, ibv_devinfo, ibstat, mst status -v, bfver),
/// shared by `ingest` and by `discover`, which runs the same tools live. Throws ParseError.
std::map<std::string, std::string> inventory_entries(InputFormat format, std::string_view text);

} // namespace dpusim::calib
