// Is this a BlueField's Arm side, a host with a BlueField, or neither; which generation; and in which
// mode it runs. On the Arm side the platform name (DMI / device tree) says "BlueField" and the
// representors of the host's PFs ("pf0hpf") exist only in DPU mode; on the host only the PCI IDs show a
// BlueField, and the mode comes from `mlxconfig ... q INTERNAL_CPU_MODEL` when the caller could run it.
#pragma once

#include "hw_calib/discover/machine_info.hpp"

#include <filesystem>
#include <optional>

namespace dpusim::calib {

/// The platform name from DMI or the device tree ("BlueField-3 DPU"), empty when there is none.
std::string read_platform_name(const std::filesystem::path& root);

BlueFieldInfo detect_bluefield(const std::string& architecture, const std::string& platform_name,
                               const std::vector<NetInterface>& nics, const std::vector<RdmaDevice>& rdma,
                               const std::optional<MlxconfigQuery>& mlxconfig);

} // namespace dpusim::calib
