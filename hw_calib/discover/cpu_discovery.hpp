// CPU model, core counts, frequency and NUMA layout from /proc/cpuinfo and /sys/devices/system. All paths
// are taken under `root` ("/" on a live system, a recorded tree in tests).
#pragma once

#include "hw_calib/discover/machine_info.hpp"

#include <filesystem>
#include <string_view>

namespace dpusim::calib {

/// `architecture`: what uname reports on a live system; empty to infer it from /proc/cpuinfo.
CpuInfo discover_cpu(const std::filesystem::path& root, std::string_view architecture);
std::vector<NumaNode> discover_numa(const std::filesystem::path& root);
/// Name of an Arm core from its MIDR part number ("0xd42" -> "Cortex-A78AE"); empty if unknown.
std::string_view arm_part_name(std::string_view part);

} // namespace dpusim::calib
