#include "hw_calib/discover/bluefield_detection.hpp"

#include "hw_calib/common/text.hpp"
#include "hw_calib/discover/pci_ids.hpp"
#include "hw_calib/discover/system_root.hpp"

#include <fmt/format.h>

namespace dpusim::calib {
namespace {

namespace fs = std::filesystem;

std::string generation_from_text(const std::string& text) {
  const std::string t = to_lower(text);
  if (t.find("bluefield-3") != std::string::npos || t.find("bluefield3") != std::string::npos)
    return "BlueField-3";
  if (t.find("bluefield-2") != std::string::npos || t.find("bluefield2") != std::string::npos)
    return "BlueField-2";
  if (t.find("bluefield") != std::string::npos)
    return "BlueField";
  return {};
}

} // namespace

std::string_view bluefield_side_name(BlueFieldSide side) {
  switch (side) {
  case BlueFieldSide::arm:
    return "arm";
  case BlueFieldSide::host:
    return "host";
  case BlueFieldSide::none:
    return "none";
  }
  return "none";
}

std::string read_platform_name(const fs::path& root) {
  for (const auto* file : {"/sys/class/dmi/id/product_name", "/sys/class/dmi/id/board_name",
                           "/sys/firmware/devicetree/base/model", "/proc/device-tree/model"}) {
    if (auto v = read_first_line(under_root(root, file)); v && !v->empty()) {
      // Device-tree strings end with a NUL.
      while (!v->empty() && v->back() == '\0')
        v->pop_back();
      if (!v->empty())
        return *v;
    }
  }
  return {};
}

BlueFieldInfo detect_bluefield(const std::string& architecture, const std::string& platform_name,
                               const std::vector<NetInterface>& nics, const std::vector<RdmaDevice>& rdma,
                               const std::optional<MlxconfigQuery>& mlxconfig) {
  BlueFieldInfo info;
  std::string pci_generation, pci_evidence;
  auto consider = [&](const std::string& pci_id, const std::string& where) {
    if (!pci_generation.empty())
      return;
    if (const auto dev = lookup_nvidia_net_device(pci_id); dev && !dev->bluefield.empty()) {
      pci_generation = std::string(dev->bluefield);
      pci_evidence = fmt::format("{} is a {} (PCI ID {})", where, dev->name, pci_id);
    }
  };
  for (const auto& n : nics)
    consider(n.pci_id, n.name);
  for (const auto& d : rdma)
    consider(d.pci_id, d.name);

  const std::string platform_generation = generation_from_text(platform_name);
  if (architecture == "aarch64" && !platform_generation.empty()) {
    info.side = BlueFieldSide::arm;
    info.generation = platform_generation;
    info.evidence = fmt::format("platform \"{}\" on aarch64", platform_name);
  } else if (!pci_generation.empty()) {
    info.side = architecture == "aarch64" && platform_name.empty() ? BlueFieldSide::arm : BlueFieldSide::host;
    info.generation = pci_generation;
    info.evidence = pci_evidence;
  } else {
    return info;
  }

  if (info.side == BlueFieldSide::arm) {
    // In DPU (embedded CPU) mode the Arm side owns the eSwitch and has representors of the host PFs.
    bool host_representor = false;
    for (const auto& n : nics)
      host_representor = host_representor || n.name == "pf0hpf" || n.name == "pf1hpf";
    info.mode = host_representor ? BlueFieldMode::dpu : BlueFieldMode::separated_host;
    info.evidence += host_representor ? "; host PF representor pf0hpf present (DPU mode)"
                                      : "; no host PF representor (pf0hpf): separated-host mode";
  } else if (mlxconfig && mlxconfig->mode != BlueFieldMode::unknown) {
    info.mode = mlxconfig->mode;
    info.evidence += fmt::format("; mlxconfig INTERNAL_CPU_MODEL says {}", bluefield_mode_name(info.mode));
  } else {
    info.evidence += "; mode not visible from the host without mlxconfig (NVIDIA Firmware Tools, as root)";
  }
  return info;
}

} // namespace dpusim::calib
