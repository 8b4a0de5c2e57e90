// What moving bytes between nodes costs the processors on each end, given where a variant runs the
// transport, encryption and virtual switch: CPU core-seconds per byte on the host CPU or on the DPU's Arm
// cores (from the cited per-core rates of the CPU profiles), the inline crypto engine a NIC puts on the
// path, whether TCP traffic detours through the Arm cores, and the software latency each network hop
// adds. Storage reads get the same treatment. Pure arithmetic: the simulator turns the costs into loads
// on multicore hosts, where they contend with everything else those cores run. See
// docs/models/host-functions.md.
#pragma once

#include "sim/offload/variant.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/scenario.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace dpusim::datapath {

// The variant vocabulary this cost model reads.
using offload::Encryption;
using offload::Function;
using offload::kFunctions;
using offload::Placement;
using offload::Site;
using offload::Transport;
using offload::Variant;

enum class Processor { host_cpu, dpu_arm };
enum class End { sender, receiver };

/// CPU work one transfer costs on one end: `core_s` core-seconds of `function` on `processor`, spread
/// over `threads` cores (each thread one core).
struct CpuWork {
  Function function = Function::transport;
  Processor processor = Processor::host_cpu;
  End end = End::sender;
  double core_s = 0;
  int threads = 1;
};

/// Core-seconds by function, for accounting and attribution.
using CoreSeconds = std::array<double, kFunctions.size()>;

class DataPath {
public:
  DataPath(const Variant& variant, const scenario::Services& services, const scenario::Hardware& hw);

  /// Per-end CPU work of moving `payload` bytes from one node to another over the network.
  [[nodiscard]] std::vector<CpuWork> network_transfer(double payload) const;
  /// Per-end CPU work of reading `bytes` from a storage server into host memory (the node's end is the
  /// receiver; storage servers' CPUs are not modelled). A host client spreads it over its `connections`
  /// (one core each); SNAP over the cores it polls with (`snap_threads`), whatever the connections.
  [[nodiscard]] std::vector<CpuWork> storage_read(double bytes, int connections) const;
  /// Writing `bytes` (a checkpoint) through the storage client: the same per-byte cost as a read, on the
  /// sending side (NFS / NVMe-oF writes copy each byte once into the socket, as TCP's send does).
  [[nodiscard]] std::vector<CpuWork> storage_write(double bytes, int connections) const;

  /// TCP traffic crosses the DPU's Arm cores (encryption or virtual switch in Arm software).
  [[nodiscard]] bool through_arm() const { return through_arm_; }
  /// Storage reads land on the DPU's Arm cores first (NVMe emulation, SNAP) and reach the host over
  /// the DPU's internal PCIe.
  [[nodiscard]] bool storage_through_arm() const { return placement_[Function::storage] == Site::dpu_arm; }
  /// SNAP runs on the Arm cores of each tray's storage-port DPU (a front-end DPU beside the training
  /// NICs), not on the training DPUs'.
  [[nodiscard]] bool storage_on_frontend() const { return storage_on_frontend_; }
  /// The rate of each NIC's inline encryption engine, per direction, when encryption is inline.
  [[nodiscard]] std::optional<units::DataRate> crypto_engine() const { return crypto_engine_; }
  /// Median one-way software latency a network hop adds (kernel TCP, Arm forwarding), and the
  /// lognormal shape of its tail.
  [[nodiscard]] double software_latency_s() const { return latency_s_; }
  [[nodiscard]] double latency_sigma() const { return sigma_; }
  /// The software latency of a step that waits for `concurrent` hops: the expected largest of that
  /// many lognormal draws, median x exp(sigma x z), z the standard normal quantile at n / (n + 1).
  [[nodiscard]] double step_latency_s(int concurrent) const;
  /// RDMA in NIC hardware: a hop's NIC latency on its two ends (the median the platform's links
  /// charge), and the lognormal shape of its tail from the NIC's 99th percentile (0: no tail known).
  [[nodiscard]] double rdma_hop_latency_s() const { return rdma_latency_s_; }
  [[nodiscard]] double rdma_latency_sigma() const { return rdma_sigma_; }
  /// Threads (one core each) that carry one connection's bytes on each end.
  [[nodiscard]] int threads() const { return threads_; }
  /// Arm cores of each DPU that SNAP's SPDK datapath polls with: min(snap_cores, Arm cores), when
  /// storage runs on the Arm cores (0 otherwise).
  [[nodiscard]] int snap_threads() const { return snap_threads_; }
  [[nodiscard]] Transport transport() const { return transport_; }

private:
  [[nodiscard]] std::vector<CpuWork> storage_client(double bytes, int connections, End end) const;
  void add(std::vector<CpuWork>& out, Function f, Processor p, End e, double bytes, units::DataRate rate,
           int threads) const;

  Placement placement_;
  scenario::Services services_;
  catalog::CpuSpec host_;
  std::optional<catalog::CpuSpec> arm_;
  std::optional<catalog::CpuSpec> storage_arm_; // where SNAP runs: the front-end DPU's, else arm_
  std::string storage_arm_device_;
  bool storage_on_frontend_ = false;
  Transport transport_;
  bool through_arm_ = false;
  std::optional<units::DataRate> crypto_engine_;
  double latency_s_ = 0;
  double sigma_ = 0;
  double rdma_latency_s_ = 0;
  double rdma_sigma_ = 0;
  int threads_ = 1;
  int arm_threads_ = 1;
  int snap_threads_ = 0;
};

/// Sums core-seconds by function (for one processor kind).
CoreSeconds core_seconds(const std::vector<CpuWork>& work, Processor processor);

} // namespace dpusim::datapath
