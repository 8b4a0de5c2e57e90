// `mlxconfig -d <device> q INTERNAL_CPU_MODEL` (NVIDIA Firmware Tools): tells, from the host, whether a
// BlueField runs in DPU mode (EMBEDDED_CPU(1): the Arm cores own the embedded switch) or in
// separated-host mode (SEPARATED_HOST(0)).
#pragma once

#include <string>
#include <string_view>

namespace dpusim::calib {

enum class BlueFieldMode { unknown, dpu, separated_host, nic };
std::string_view bluefield_mode_name(BlueFieldMode mode);

struct MlxconfigQuery {
  std::string device_type; // "BlueField3"
  std::string description;
  BlueFieldMode mode = BlueFieldMode::unknown;
};

/// Unknown or missing values give BlueFieldMode::unknown; nothing throws.
MlxconfigQuery parse_mlxconfig_query(std::string_view text);

} // namespace dpusim::calib
