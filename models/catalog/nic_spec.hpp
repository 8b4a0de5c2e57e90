#pragma once

#include "models/base/units.hpp"
#include "models/catalog/cited.hpp"
#include "models/catalog/cpu_spec.hpp"
#include "models/catalog/node_spec.hpp"
#include "models/catalog/reliability.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::catalog {

class EntryReader;

enum class DeviceKind { nic, dpu };

/// Which host-side functions a device can take over, and the measured limits of its engines.
struct OffloadSupport {
  std::vector<std::string>
      nic; // functions its hardware engines run (transport, storage, encryption, vswitch)
  std::vector<std::string> dpu_arm; // functions its Arm cores can run (storage, encryption, vswitch, agents)
  std::optional<Cited<units::DataRate>> ipsec_rate; // inline IPsec engine, per direction
  std::optional<Cited<units::DataRate>> tls_rate;   // inline TLS engine, per direction
  [[nodiscard]] bool on_nic(std::string_view function) const;
  [[nodiscard]] bool on_arm(std::string_view function) const;
};

/// A ConnectX NIC or a BlueField DPU (a ConnectX core plus an Arm complex).
struct NicSpec {
  std::string name;
  std::string description;
  DeviceKind kind = DeviceKind::nic;
  std::string nic_core;                  // DPU: the ConnectX generation inside it
  Cited<units::DataRate> line_rate;      // per port
  Cited<units::DataRate> pcie_bandwidth; // host side, per direction
  Cited<units::Seconds> latency;         // NIC processing latency, one way
  /// The 99th percentile of a small RDMA message's one-way latency (perftest's ib_write_lat), whose
  /// median is `latency`: the shape of RDMA's latency tail (noise.network_tail). None: no tail.
  std::optional<Cited<units::Seconds>> latency_p99;
  Cited<double> rdma_efficiency;       // RDMA write payload rate / line rate
  Cited<double> collective_efficiency; // NCCL ring bus bandwidth / line rate
  OffloadSupport offloads;
  std::optional<CpuSpec> arm; // DPU Arm complex
  Cited<units::Power> power;
  /// The optical transceiver in its network port, where the catalog gives one (planner power per link).
  std::optional<Cited<units::Power>> optics_power;
  std::optional<InterruptionRate> interruptions; // per device, from a failure study
  /// Whether its RDMA receive path places packets that arrive out of order (as per-packet adaptive
  /// routing delivers them), on each link layer. Absent: not known to, and taken as unable.
  std::optional<Cited<bool>> out_of_order_ethernet;
  std::optional<Cited<bool>> out_of_order_infiniband;
  /// Whether it takes adaptive routing on a fabric of that link layer.
  [[nodiscard]] bool places_out_of_order(LinkLayer layer) const;
};

NicSpec read_nic(EntryReader& r, const class Sources& sources);

} // namespace dpusim::catalog
