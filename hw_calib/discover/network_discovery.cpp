#include "hw_calib/discover/network_discovery.hpp"

#include "hw_calib/common/text.hpp"
#include "hw_calib/discover/system_root.hpp"

#include <algorithm>

namespace dpusim::calib {
namespace {

namespace fs = std::filesystem;

struct DeviceIdentity {
  std::string driver, pci_slot, pci_id;
};

// <dev>/device/uevent: DRIVER=mlx5_core, PCI_ID=15B3:A2DC, PCI_SLOT_NAME=0000:3b:00.0
DeviceIdentity read_uevent(const fs::path& device_dir) {
  DeviceIdentity id;
  const std::string uevent = read_text_file(device_dir / "uevent").value_or("");
  for (const auto line : split_lines(uevent)) {
    const auto eq = line.find('=');
    if (eq == std::string_view::npos)
      continue;
    const auto key = line.substr(0, eq);
    const std::string value(trim(line.substr(eq + 1)));
    if (key == "DRIVER")
      id.driver = value;
    else if (key == "PCI_ID")
      id.pci_id = value;
    else if (key == "PCI_SLOT_NAME")
      id.pci_slot = value;
  }
  return id;
}

std::optional<PcieLink> read_pcie_link(const fs::path& device_dir) {
  const auto speed = read_first_line(device_dir / "current_link_speed");
  if (!speed || speed->empty())
    return std::nullopt;
  PcieLink link;
  link.speed = *speed;
  link.max_speed = read_first_line(device_dir / "max_link_speed").value_or("");
  if (const auto w = read_first_line(device_dir / "current_link_width"))
    if (const auto v = parse_integer(*w))
      link.width = static_cast<int>(*v);
  if (const auto w = read_first_line(device_dir / "max_link_width"))
    if (const auto v = parse_integer(*w))
      link.max_width = static_cast<int>(*v);
  return link;
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

std::optional<double> parse_rdma_rate(std::string_view text) {
  const auto f = split_whitespace(text);
  if (f.size() < 2)
    return std::nullopt;
  const auto v = parse_number(f[0]);
  if (!v)
    return std::nullopt;
  if (f[1] == "Gb/sec")
    return *v * 1e9;
  if (f[1] == "Mb/sec")
    return *v * 1e6;
  return std::nullopt;
}

std::vector<NetInterface> discover_nics(const fs::path& root) {
  std::vector<NetInterface> nics;
  for (const auto& dir : sorted_entries(under_root(root, "/sys/class/net"))) {
    NetInterface nic;
    nic.name = dir.filename().string();
    if (nic.name == "lo")
      continue;
    const DeviceIdentity id = read_uevent(dir / "device");
    nic.driver = id.driver;
    nic.pci_slot = id.pci_slot;
    nic.pci_id = id.pci_id;
    nic.operstate = read_first_line(dir / "operstate").value_or("");
    if (const auto mtu = read_first_line(dir / "mtu"))
      if (const auto v = parse_integer(*mtu))
        nic.mtu = static_cast<int>(*v);
    // "speed" is in Mb/s; it reads -1 or fails with EINVAL when the link is down or unknown.
    if (const auto speed = read_first_line(dir / "speed"))
      if (const auto v = parse_integer(*speed); v && *v > 0)
        nic.speed_bps = static_cast<double>(*v) * 1e6;
    if (!nic.pci_slot.empty())
      nic.pcie = read_pcie_link(dir / "device");
    nics.push_back(std::move(nic));
  }
  return nics;
}

std::vector<RdmaDevice> discover_rdma(const fs::path& root) {
  std::vector<RdmaDevice> devices;
  for (const auto& dir : sorted_entries(under_root(root, "/sys/class/infiniband"))) {
    RdmaDevice dev;
    dev.name = dir.filename().string();
    dev.hca_type = read_first_line(dir / "hca_type").value_or("");
    dev.fw_ver = read_first_line(dir / "fw_ver").value_or("");
    dev.board_id = read_first_line(dir / "board_id").value_or("");
    const DeviceIdentity id = read_uevent(dir / "device");
    dev.pci_slot = id.pci_slot;
    dev.pci_id = id.pci_id;
    for (const auto& net : sorted_entries(dir / "device/net"))
      dev.netdevs.push_back(net.filename().string());
    for (const auto& port_dir : sorted_entries(dir / "ports")) {
      RdmaPort port;
      port.port = static_cast<int>(parse_integer(port_dir.filename().string()).value_or(0));
      port.rate_text = read_first_line(port_dir / "rate").value_or("");
      port.rate_bps = parse_rdma_rate(port.rate_text);
      port.state = read_first_line(port_dir / "state").value_or("");
      port.link_layer = read_first_line(port_dir / "link_layer").value_or("");
      dev.ports.push_back(std::move(port));
    }
    devices.push_back(std::move(dev));
  }
  return devices;
}

} // namespace dpusim::calib
