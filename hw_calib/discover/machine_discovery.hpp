// Everything `discover` reports, gathered in one call. On a live system (root "/") it also runs the
// optional tools, each with a time limit and never through a shell: ethtool -k per NIC, nvidia-smi,
// and mlxconfig for a BlueField seen from the host (as root only); absent tools leave a note.
#pragma once

#include "hw_calib/discover/machine_info.hpp"

#include <chrono>
#include <filesystem>

namespace dpusim::calib {

struct DiscoverOptions {
  std::filesystem::path root = "/";
  bool run_tools = true;     // false in tests on recorded trees
  bool measure_clock = true; // run the dependent-add loop (~0.2 s)
  std::chrono::milliseconds clock_duration{200};
  std::chrono::milliseconds tool_timeout{std::chrono::seconds(20)};
};

MachineInfo discover_machine(const DiscoverOptions& options);

} // namespace dpusim::calib
