// Names of the NVIDIA networking PCI devices discover recognises (vendor 0x15b3), from the PCI ID
// repository (pci.ids). BlueField devices mark a DPU; the same ID is seen from the host and from the
// Arm side, which differ by architecture and by the platform name.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dpusim::calib {

struct NvidiaNetDevice {
  std::string_view name;      // "BlueField-3 integrated ConnectX-7 network controller"
  std::string_view bluefield; // "BlueField-3" for BlueField devices, empty for plain ConnectX
};

/// `pci_id` as in uevent's PCI_ID ("15B3:A2DC", any case). nullopt for devices not in the table.
std::optional<NvidiaNetDevice> lookup_nvidia_net_device(std::string_view pci_id);

} // namespace dpusim::calib
