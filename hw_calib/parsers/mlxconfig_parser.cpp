#include "hw_calib/parsers/mlxconfig_parser.hpp"

#include "hw_calib/common/text.hpp"

namespace dpusim::calib {

std::string_view bluefield_mode_name(BlueFieldMode mode) {
  switch (mode) {
  case BlueFieldMode::dpu:
    return "dpu";
  case BlueFieldMode::separated_host:
    return "separated-host";
  case BlueFieldMode::nic:
    return "nic";
  case BlueFieldMode::unknown:
    return "unknown";
  }
  return "unknown";
}

MlxconfigQuery parse_mlxconfig_query(std::string_view text) {
  MlxconfigQuery q;
  for (const auto raw : split_lines(text)) {
    const auto line = trim(raw);
    const auto field = [&](std::string_view key) -> std::string {
      if (!starts_with(line, key))
        return {};
      return std::string(trim(line.substr(key.size())));
    };
    if (auto v = field("Device type:"); !v.empty())
      q.device_type = v;
    if (auto v = field("Description:"); !v.empty())
      q.description = v;
    const auto f = split_whitespace(line);
    if (f.size() >= 2 && f[0] == "INTERNAL_CPU_MODEL") {
      if (starts_with(f[1], "EMBEDDED_CPU"))
        q.mode = BlueFieldMode::dpu;
      else if (starts_with(f[1], "SEPARATED_HOST"))
        q.mode = BlueFieldMode::separated_host;
    }
    // NIC mode (Arm cores off) on BlueField-3: INTERNAL_CPU_OFFLOAD_ENGINE DISABLED(1).
    if (f.size() >= 2 && f[0] == "INTERNAL_CPU_OFFLOAD_ENGINE" && starts_with(f[1], "DISABLED"))
      q.mode = BlueFieldMode::nic;
  }
  return q;
}

} // namespace dpusim::calib
