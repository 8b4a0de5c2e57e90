// The concrete parts one variant of a scenario runs on: catalog entries, with any value a calibration
// profile measured put in their place (and the citation saying so).
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/offload/variant.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dpusim::scenario {

struct CalibratedValue {
  std::string key;        // registry key, e.g. host_cpu.tcp_rx_rate_per_core
  std::string value;      // as written in the profile
  std::string provenance; // measured | fitted | datasheet
  bool used = false;      // false: the profile has it but no model of this scenario consumes it
  std::string note;       // why it was or was not taken, where that is not plain
};
/// "key = value (provenance[, unused][; note])", as a run and a sweep list it.
std::string describe(const CalibratedValue& cv);

/// An all-reduce's time at small messages as measured on the user's cluster (a calibration profile's
/// collective.allreduce_latency) and the shape it ran on (collective.allreduce_ranks, .allreduce_nodes):
/// estimate::take_measured_latency sets the library's step latencies from it.
struct MeasuredAllReduce {
  std::optional<catalog::Cited<units::Seconds>> latency;
  int ranks = 0;
  int nodes = 0;
};

struct Hardware {
  catalog::NodeSpec node;
  catalog::GpuSpec gpu;
  catalog::CpuSpec cpu;
  catalog::NicSpec nic; // the device that carries inter-node traffic in this variant (NIC or DPU)
  // The NIC or DPU of each tray's storage port on a separate storage fabric (cluster.storage.node_nic).
  std::optional<catalog::NicSpec> storage_nic;
  catalog::CollectiveSpec collective;
  MeasuredAllReduce measured_allreduce;
  catalog::SwitchSpec fabric_switch;
  std::string profile_path;
  std::vector<CalibratedValue> calibrated;
  // Where the profile's machine reports other parts than the scenario's (model/calibration_machine).
  std::vector<std::string> calibration_differences;
  std::string gpu_performance; // which GPU performance figures apply, and how far they are validated
  // The latency of one sample read from the storage servers before its bytes flow, median and 99th
  // percentile: from the scenario (cluster.storage.read_latency) or a calibration profile; none: reads
  // have no latency of their own.
  std::optional<catalog::Cited<units::Seconds>> storage_read_latency_median;
  std::optional<catalog::Cited<units::Seconds>> storage_read_latency_p99;

  /// The storage port's DPU, where it has one whose Arm cores run `f` (a front-end DPU beside the
  /// training NICs); nullptr otherwise.
  [[nodiscard]] const catalog::NicSpec* frontend_dpu(offload::Function f) const;
  /// The Arm complex that runs `f` when it is placed on dpu_arm: the front-end DPU's where it runs `f`,
  /// else the variant's device's (absent on a NIC).
  [[nodiscard]] const std::optional<catalog::CpuSpec>& arm_for(offload::Function f) const;
  /// The cores of one host CPU complex: a server's sockets, or one tray's of a rack.
  [[nodiscard]] int host_cores() const { return cpu.cores.value * node.cpu_sockets.value / node.trays.value; }
  /// The cores of every host of the node (a rack's trays together).
  [[nodiscard]] int node_host_cores() const { return cpu.cores.value * node.cpu_sockets.value; }
};

/// The functions (storage, agents) that each tray's storage-port DPU runs on its Arm cores when a variant
/// places them on dpu_arm: none unless storage has a fabric of its own whose node_nic is a DPU.
std::vector<offload::Function> frontend_functions(const ClusterConfig& cluster, const catalog::Catalog& cat);
/// The scenario's requirements with its front-end DPU's functions (Scenario::requirements leaves them out:
/// it has no catalog).
offload::Requirements requirements(const Scenario& s, const catalog::Catalog& cat);

/// The variant places a function the scenario uses on the Arm cores of the front-end DPUs (each tray's
/// storage port).
bool runs_on_frontend(const Scenario& s, const offload::Variant& v, const Hardware& hw);

/// The catalog's parts for one variant (a calibration profile is applied by model::hardware_for).
Hardware resolve_hardware(const Scenario& s, const catalog::Catalog& cat, const offload::Variant& variant);

} // namespace dpusim::scenario
