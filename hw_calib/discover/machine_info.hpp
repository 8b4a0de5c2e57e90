// What `dpusim-calib discover` finds out about the machine it runs on: CPU and NUMA layout, NICs and
// RDMA devices with their link rates, PCIe links, inline-crypto features, GPUs, and whether this is a
// BlueField's Arm side or a host with a BlueField (and in which mode). The profile stores it flattened
// under `machine:` (see machine_summary.hpp).
#pragma once

#include "hw_calib/parsers/ethtool_parser.hpp"
#include "hw_calib/parsers/mlxconfig_parser.hpp"
#include "hw_calib/parsers/nvidia_smi_parser.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dpusim::calib {

struct CpuInfo {
  std::string model;        // "Intel(R) Xeon(R) Platinum 8480C", or the Arm part name ("Cortex-A78AE")
  std::string vendor;       // "GenuineIntel", "AuthenticAMD", "ARM"
  std::string architecture; // "x86_64", "aarch64"
  int logical_cpus = 0;
  int physical_cores = 0;
  int sockets = 0;
  std::optional<double> max_frequency_hz;      // cpufreq cpuinfo_max_freq
  std::optional<double> reported_frequency_hz; // /proc/cpuinfo "cpu MHz" (x86) when there is no cpufreq
  std::vector<std::string> crypto_features;    // aes, vaes, vpclmulqdq, sha_ni, avx512f / aes, pmull, sha2
};

struct NumaNode {
  int id = 0;
  std::string cpus; // the kernel's cpulist, e.g. "0-55,112-167"
  std::optional<double> memory_bytes;
};

struct PcieLink {
  std::string speed; // "32.0 GT/s PCIe"
  std::optional<int> width;
  std::string max_speed;
  std::optional<int> max_width;
  [[nodiscard]] std::string describe() const;
};

struct NetInterface {
  std::string name;
  std::string driver;   // "mlx5_core", "virtio_net"
  std::string pci_slot; // "0000:3b:00.0"; empty for virtual interfaces
  std::string pci_id;   // "15B3:A2DC"
  std::optional<double> speed_bps;
  std::optional<int> mtu;
  std::string operstate;
  std::optional<PcieLink> pcie;
  std::optional<InlineCrypto> crypto; // from ethtool -k, when ethtool is installed
};

struct RdmaPort {
  int port = 1;
  std::string rate_text; // "400 Gb/sec (4X NDR)"
  std::optional<double> rate_bps;
  std::string state;      // "4: ACTIVE"
  std::string link_layer; // "Ethernet" | "InfiniBand"
};

struct RdmaDevice {
  std::string name; // "mlx5_0"
  std::string hca_type;
  std::string fw_ver;
  std::string board_id;
  std::string pci_slot;
  std::string pci_id;
  std::vector<std::string> netdevs;
  std::vector<RdmaPort> ports;
};

enum class BlueFieldSide { none, arm, host };
std::string_view bluefield_side_name(BlueFieldSide side);

struct BlueFieldInfo {
  BlueFieldSide side = BlueFieldSide::none;
  std::string generation; // "BlueField-3"
  BlueFieldMode mode = BlueFieldMode::unknown;
  std::string evidence; // what the detection was based on, for the reader of the profile
};

struct MachineInfo {
  std::string hostname;
  std::string kernel;
  CpuInfo cpu;
  std::vector<NumaNode> numa;
  std::vector<NetInterface> nics;
  std::vector<RdmaDevice> rdma;
  std::vector<NvidiaGpu> gpus;
  BlueFieldInfo bluefield;
  std::optional<double> measured_core_clock_hz;
  std::string role = "host_cpu";            // host_cpu | dpu_arm: the profile role this machine calibrates
  std::map<std::string, std::string> tools; // tool -> version, for the tools discover ran
  // What the inventory tools add (nvidia-smi topo -m, ethtool -i, ibv_devinfo, bfver), in the profile's
  // machine keys, read with the parsers `ingest` uses for the same tools' recorded outputs.
  std::map<std::string, std::string> inventory;
  std::vector<std::string> notes; // what could not be found out and why
};

} // namespace dpusim::calib
