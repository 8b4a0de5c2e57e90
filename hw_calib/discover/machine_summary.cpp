#include "hw_calib/discover/machine_summary.hpp"

#include "hw_calib/discover/pci_ids.hpp"
#include "models/base/unit_parse.hpp"

#include <fmt/format.h>

namespace dpusim::calib {
namespace {

// Interface names may contain dots (VLANs: "eth0.100"); dots separate levels in the flat keys.
std::string key_part(std::string name) {
  for (auto& c : name) {
    if (c == '.')
      c = '_';
  }
  return name;
}

std::string rate(double bps) {
  return units::format(units::DataRate::from_si(bps / 8.0));
}
std::string freq(double hz) {
  return units::format(units::Frequency::from_si(hz));
}
std::string size(double bytes) {
  return units::format(units::Bytes::from_si(bytes));
}

std::string gpu_link(const NvidiaGpu& g) {
  auto v = [](const std::optional<int>& x) { return x ? std::to_string(*x) : std::string("?"); };
  return fmt::format("gen{} x{} (max gen{} x{})", v(g.pcie_gen_current), v(g.pcie_width_current),
                     v(g.pcie_gen_max), v(g.pcie_width_max));
}

} // namespace

std::string PcieLink::describe() const {
  auto w = [](const std::optional<int>& x) { return x ? fmt::format(" x{}", *x) : std::string(); };
  return fmt::format("{}{} (max {}{})", speed, w(width), max_speed.empty() ? "?" : max_speed, w(max_width));
}

std::map<std::string, std::string> flatten_machine(const MachineInfo& m) {
  std::map<std::string, std::string> out;
  out["hostname"] = m.hostname;
  out["kernel"] = m.kernel;
  out["role"] = m.role;
  out["cpu.model"] = m.cpu.model;
  out["cpu.vendor"] = m.cpu.vendor;
  out["cpu.architecture"] = m.cpu.architecture;
  out["cpu.logical_cpus"] = std::to_string(m.cpu.logical_cpus);
  out["cpu.physical_cores"] = std::to_string(m.cpu.physical_cores);
  out["cpu.sockets"] = std::to_string(m.cpu.sockets);
  if (m.cpu.max_frequency_hz)
    out["cpu.max_frequency"] = freq(*m.cpu.max_frequency_hz);
  if (m.cpu.reported_frequency_hz)
    out["cpu.reported_frequency"] = freq(*m.cpu.reported_frequency_hz);
  if (m.measured_core_clock_hz)
    out["cpu.measured_clock"] = freq(*m.measured_core_clock_hz);
  out["cpu.crypto_features"] = fmt::format("{}", fmt::join(m.cpu.crypto_features, " "));
  out["numa.nodes"] = std::to_string(m.numa.size());
  for (const auto& n : m.numa) {
    out[fmt::format("numa.node{}.cpus", n.id)] = n.cpus;
    if (n.memory_bytes)
      out[fmt::format("numa.node{}.memory", n.id)] = size(*n.memory_bytes);
  }
  for (const auto& nic : m.nics) {
    const std::string p = "nic." + key_part(nic.name) + ".";
    out[p + "driver"] = nic.driver;
    out[p + "state"] = nic.operstate;
    if (!nic.pci_slot.empty())
      out[p + "pci"] = nic.pci_slot;
    if (!nic.pci_id.empty()) {
      const auto dev = lookup_nvidia_net_device(nic.pci_id);
      out[p + "pci_id"] = dev ? fmt::format("{} ({})", nic.pci_id, dev->name) : nic.pci_id;
    }
    if (nic.speed_bps)
      out[p + "speed"] = rate(*nic.speed_bps);
    if (nic.mtu)
      out[p + "mtu"] = std::to_string(*nic.mtu);
    if (nic.pcie)
      out[p + "pcie_link"] = nic.pcie->describe();
    if (nic.crypto)
      out[p + "inline_crypto"] = nic.crypto->describe();
  }
  for (const auto& d : m.rdma) {
    const std::string p = "rdma." + key_part(d.name) + ".";
    out[p + "hca_type"] = d.hca_type;
    out[p + "firmware"] = d.fw_ver;
    out[p + "board_id"] = d.board_id;
    out[p + "netdevs"] = fmt::format("{}", fmt::join(d.netdevs, " "));
    for (const auto& port : d.ports) {
      const std::string pp = fmt::format("{}port{}.", p, port.port);
      out[pp + "rate"] = port.rate_bps ? rate(*port.rate_bps) : port.rate_text;
      out[pp + "state"] = port.state;
      out[pp + "link_layer"] = port.link_layer;
    }
  }
  for (const auto& g : m.gpus) {
    const std::string p = fmt::format("gpu.{}.", g.index);
    out[p + "name"] = g.name;
    if (g.memory_total_bytes)
      out[p + "memory"] = size(*g.memory_total_bytes);
    out[p + "pcie_link"] = gpu_link(g);
    if (g.max_sm_clock_hz)
      out[p + "max_sm_clock"] = freq(*g.max_sm_clock_hz);
    out[p + "pci"] = g.pci_bus_id;
  }
  for (const auto& [k, v] : m.inventory)
    out[k] = v;
  out["bluefield.side"] = std::string(bluefield_side_name(m.bluefield.side));
  if (m.bluefield.side != BlueFieldSide::none) {
    out["bluefield.generation"] = m.bluefield.generation;
    out["bluefield.mode"] = std::string(bluefield_mode_name(m.bluefield.mode));
    out["bluefield.evidence"] = m.bluefield.evidence;
  }
  return out;
}

std::string render_machine_summary(const MachineInfo& m) {
  std::string s;
  s += fmt::format("Machine     {} (kernel {})\n", m.hostname, m.kernel);
  s += fmt::format("Role        {}\n", m.role);
  s += fmt::format("CPU         {} ({}, {})\n", m.cpu.model, m.cpu.vendor, m.cpu.architecture);
  s += fmt::format("            {} physical cores, {} logical CPUs, {} socket(s)\n", m.cpu.physical_cores,
                   m.cpu.logical_cpus, m.cpu.sockets);
  if (m.cpu.max_frequency_hz)
    s += fmt::format("            max frequency {} (cpufreq)\n", freq(*m.cpu.max_frequency_hz));
  if (m.cpu.reported_frequency_hz)
    s += fmt::format("            reported frequency {} (/proc/cpuinfo)\n",
                     freq(*m.cpu.reported_frequency_hz));
  if (m.measured_core_clock_hz)
    s += fmt::format("            measured clock {} (dependent-add loop)\n", freq(*m.measured_core_clock_hz));
  s += fmt::format("            crypto ISA: {}\n",
                   m.cpu.crypto_features.empty() ? std::string("none")
                                                 : fmt::format("{}", fmt::join(m.cpu.crypto_features, " ")));
  for (const auto& n : m.numa)
    s += fmt::format("NUMA node {} CPUs {}{}\n", n.id, n.cpus,
                     n.memory_bytes ? fmt::format(", {}", size(*n.memory_bytes)) : std::string());
  for (const auto& nic : m.nics) {
    s += fmt::format("NIC         {:<12} {:<12} {:<8} {}{}{}{}\n", nic.name,
                     nic.driver.empty() ? "-" : nic.driver, nic.speed_bps ? rate(*nic.speed_bps) : "-",
                     nic.operstate, nic.pci_slot.empty() ? "" : " pci " + nic.pci_slot,
                     nic.pcie ? " PCIe " + nic.pcie->describe() : "",
                     nic.crypto ? " inline crypto: " + nic.crypto->describe() : "");
  }
  for (const auto& d : m.rdma) {
    for (const auto& port : d.ports)
      s += fmt::format("RDMA        {} port {} {} {} {} (netdevs: {})\n", d.name, port.port, port.rate_text,
                       port.link_layer, port.state, fmt::join(d.netdevs, " "));
  }
  if (m.rdma.empty())
    s += "RDMA        none\n";
  for (const auto& g : m.gpus)
    s += fmt::format("GPU {}       {} {} PCIe {}\n", g.index, g.name,
                     g.memory_total_bytes ? size(*g.memory_total_bytes) : "", gpu_link(g));
  if (m.gpus.empty())
    s += "GPU         none\n";
  if (m.bluefield.side == BlueFieldSide::none)
    s += "BlueField   none\n";
  else
    s += fmt::format("BlueField   {} side of a {}, mode {} ({})\n", bluefield_side_name(m.bluefield.side),
                     m.bluefield.generation, bluefield_mode_name(m.bluefield.mode), m.bluefield.evidence);
  for (const auto& note : m.notes)
    s += fmt::format("Note        {}\n", note);
  return s;
}

} // namespace dpusim::calib
