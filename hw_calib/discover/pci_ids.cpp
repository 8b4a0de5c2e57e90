#include "hw_calib/discover/pci_ids.hpp"

#include "hw_calib/common/text.hpp"

#include <array>

namespace dpusim::calib {
namespace {

struct Entry {
  std::string_view id; // lower case "15b3:a2dc"
  NvidiaNetDevice device;
};

constexpr std::array kDevices{
    Entry{"15b3:1017", {"ConnectX-5", ""}},
    Entry{"15b3:1019", {"ConnectX-5 Ex", ""}},
    Entry{"15b3:101b", {"ConnectX-6", ""}},
    Entry{"15b3:101d", {"ConnectX-6 Dx", ""}},
    Entry{"15b3:101f", {"ConnectX-6 Lx", ""}},
    Entry{"15b3:1021", {"ConnectX-7", ""}},
    Entry{"15b3:1023", {"ConnectX-8", ""}},
    Entry{"15b3:a2d2", {"BlueField integrated ConnectX-5 network controller", "BlueField"}},
    Entry{"15b3:a2d6", {"BlueField-2 integrated ConnectX-6 Dx network controller", "BlueField-2"}},
    Entry{"15b3:a2dc", {"BlueField-3 integrated ConnectX-7 network controller", "BlueField-3"}},
    Entry{"15b3:c2d2", {"BlueField SoC management interface", "BlueField"}},
    Entry{"15b3:c2d3", {"BlueField-2 SoC management interface", "BlueField-2"}},
    Entry{"15b3:c2d5", {"BlueField-3 SoC management interface", "BlueField-3"}},
};

} // namespace

std::optional<NvidiaNetDevice> lookup_nvidia_net_device(std::string_view pci_id) {
  const std::string id = to_lower(trim(pci_id));
  for (const auto& e : kDevices) {
    if (e.id == id)
      return e.device;
  }
  return std::nullopt;
}

} // namespace dpusim::calib
