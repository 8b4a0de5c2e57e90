#pragma once

#include "models/base/units.hpp"
#include "models/catalog/cited.hpp"

#include <optional>
#include <string>

namespace dpusim::catalog {

class EntryReader;

/// A host CPU (per socket) and the per-core costs of the host-side functions it may run.
struct CpuSpec {
  std::string name;
  std::string description;
  Cited<int> cores; // per socket
  /// Who makes it (intel, amd, nvidia; empty where the entry does not say): NCCL's tuner weighs AMD hosts'
  /// and x86 hosts' costs apart (docs/models/collectives.md, "NCCL's choice").
  std::string vendor;
  Cited<units::Frequency> base_clock;
  Cited<units::DataRate> tcp_tx_rate_per_core;  // CPU-bound kernel TCP send throughput of one core
  Cited<units::DataRate> tcp_rx_rate_per_core;  // ... receive
  Cited<units::Seconds> tcp_latency_median;     // one-way software latency of the kernel stack
  Cited<double> tcp_latency_sigma;              // lognormal shape of that latency
  Cited<units::DataRate> aes_gcm_rate_per_core; // AES-256-GCM, one core
  Cited<units::DataRate> ovs_rate_per_core;     // VXLAN overlay through the OVS datapath, one core
  Cited<units::DataRate>
      storage_client_rate_per_core; // storage client (NFS/NVMe-oF, SPDK on a DPU), one core
  /// DPU Arm complex only: the cores SNAP's SPDK datapath polls with (its core mask), the parallelism of
  /// NVMe emulation on this DPU, whatever the host's storage connections.
  std::optional<Cited<int>> snap_cores;
  std::optional<Cited<units::Seconds>> kernel_launch_cpu; // host: CPU time to launch one GPU kernel
  /// OS noise a thread sees on an otherwise idle core, as the fixed-work-quantum benchmark measures it
  /// (100 us quanta): the mean share of each quantum lost to detours, and the 99th percentile of the
  /// detour per quantum. The noise model draws detours from them (docs/models/noise.md).
  std::optional<Cited<double>> os_noise_fraction;
  std::optional<Cited<units::Seconds>> os_noise_p99;
  Cited<units::DataRate> memory_bandwidth; // per socket
  std::optional<Cited<units::Power>> tdp;
};

/// Reads the per-core fields shared by host CPUs and DPU Arm complexes.
CpuSpec read_cpu(EntryReader& r);

} // namespace dpusim::catalog
