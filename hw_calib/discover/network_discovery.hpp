// NICs (/sys/class/net) and RDMA devices (/sys/class/infiniband) with link rates, PCI identity and PCIe
// link state. Reads sysfs only; ethtool features are added by machine_discovery when ethtool exists.
#pragma once

#include "hw_calib/discover/machine_info.hpp"

#include <filesystem>

namespace dpusim::calib {

/// Physical and virtual interfaces except loopback, sorted by name.
std::vector<NetInterface> discover_nics(const std::filesystem::path& root);
std::vector<RdmaDevice> discover_rdma(const std::filesystem::path& root);
/// "400 Gb/sec (4X NDR)" -> 400e9 bits/s.
std::optional<double> parse_rdma_rate(std::string_view text);

} // namespace dpusim::calib
