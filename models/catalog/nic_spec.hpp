#pragma once

#include "models/catalog/cited.hpp"
#include "models/catalog/cpu_spec.hpp"
#include "models/core/units.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dpusim::catalog {

class EntryReader;

enum class DeviceKind { nic, dpu };

/// A ConnectX NIC or a BlueField DPU (a ConnectX core plus an Arm complex).
struct NicSpec {
  std::string name;
  std::string description;
  DeviceKind kind = DeviceKind::nic;
  std::string nic_core;                  // DPU: the ConnectX generation inside it
  Cited<units::DataRate> line_rate;      // per port
  Cited<units::DataRate> pcie_bandwidth; // host side, per direction
  Cited<units::Seconds> latency;         // NIC processing latency, one way
  Cited<double> rdma_efficiency;         // RDMA write payload rate / line rate
  Cited<double> collective_efficiency;   // NCCL ring bus bandwidth / line rate
  std::vector<std::string> offloads;     // host functions this device can take over
  std::optional<CpuSpec> arm;            // DPU Arm complex
  Cited<units::Power> power;
};

NicSpec read_nic(EntryReader& r, const class Sources& sources);

} // namespace dpusim::catalog
