#pragma once

#include "models/base/units.hpp"
#include "models/catalog/cited.hpp"
#include "models/catalog/reliability.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace dpusim::catalog {

class EntryReader;

/// A server: which GPU, CPU and compute NIC it holds, how many, and how they are wired. A node is one
/// NVLink domain: an 8-GPU server, or a rack of `trays` compute trays whose GPUs share NVLink switches
/// (GB200 NVL72: 18 trays). GPUs, CPU sockets, NICs and PCIe switches are the node's, split evenly over
/// its trays; each tray has its own host CPUs, and its GPUs and NICs reach them through its own PCIe
/// switches.
struct NodeSpec {
  std::string name;
  std::string description;
  std::string gpu; // catalog names
  std::string cpu;
  std::string nic; // default compute NIC
  Cited<int> gpus;
  Cited<int> cpu_sockets;
  Cited<int> nics;                    // compute NICs (one port each)
  Cited<int> pcie_switches;           // GPUs and NICs spread evenly over them
  Cited<int> trays{1, {}};            // compute trays of the NVLink domain, each with its own host CPUs
  Cited<units::DataRate> pcie_uplink; // PCIe switch to CPU root port, per direction
  Cited<units::Seconds> pcie_latency; // per PCIe link traversal
  Cited<units::Seconds> nvlink_latency;
  Cited<units::Bytes> host_memory;
  Cited<units::Power> power; // whole node, maximum
  // What the node draws beyond its GPUs, compute NICs/DPUs and its CPUs' busy cores: memory, fans,
  // NVSwitches, local storage, the board and the CPUs' idle floor (planner energy).
  std::optional<Cited<units::Power>> platform_power;
  // Interruptions per server from a failure study: its host components (CPU, memory, SSD, power supply,
  // chassis, boards; unplanned host maintenance), and those counted per server of the job though not
  // in it: the fabric's switches and cables, and the software stack.
  std::optional<InterruptionRate> interruptions;
  std::optional<InterruptionRate> network_interruptions;
  std::optional<InterruptionRate> software_interruptions;
};

NodeSpec read_node(EntryReader& r);

enum class LinkLayer { ethernet, infiniband };
std::string_view link_layer_name(LinkLayer l);

/// A leaf/spine switch model.
struct SwitchSpec {
  std::string name;
  std::string description;
  Cited<int> ports;
  Cited<units::DataRate> port_speed;
  /// Whether each connection is hashed on its own at equal-cost choices (Ethernet ECMP over RoCEv2's
  /// per-queue-pair UDP source port), or every connection between two ports takes one path (InfiniBand
  /// forwards by destination LID from the subnet manager's tables).
  Cited<bool> hashes_each_connection;
  /// The link layer its ports speak: a NIC's out-of-order placement is stated per link layer.
  LinkLayer link_layer = LinkLayer::ethernet;
  /// Whether it can route each packet over the least loaded of its equal-cost ports (adaptive routing),
  /// for receivers that place packets arriving out of order.
  Cited<bool> adaptive_routing;
  /// The optical transceiver of one port at `port_speed`, where the catalog gives one; a slower link
  /// takes its share of the port's (a breakout's) optics (planner power per link).
  std::optional<Cited<units::Power>> optics_power;
  /// Ports usable at `link` speed, splitting faster ports (breakout).
  [[nodiscard]] int ports_at(units::DataRate link) const;
};

SwitchSpec read_switch(EntryReader& r);

} // namespace dpusim::catalog
