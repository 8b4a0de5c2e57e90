// Inventory tools of GPU and BlueField nodes:
// - `nvidia-smi topo -m`: the matrix of GPUs and NICs ("GPU0 GPU1 ... NIC0 ... CPU Affinity NUMA
//   Affinity ..." header, one row per device: X, NV#, PIX, PXB, PHB, NODE, SYS), then "Legend:" and,
//   in newer drivers, "NIC Legend:" naming each NICn ("NIC0: mlx5_0").
// - `mst status -v` (NVIDIA Firmware Tools): "DEVICE_TYPE MST PCI RDMA NET NUMA" and a row per function.
// - `bfver` (BlueField BSP, on the Arm side): for each eMMC boot partition or file it read, "--<path>"
//   and "BlueField <component> version: <version>" lines (ATF, UEFI, BSP; SBIOS on a BlueField-4), then
//   "OS Release Version: <bundle>".
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct GpuTopology {
  std::vector<std::string> devices;                               // column order: "GPU0", ..., "NIC0", ...
  std::map<std::string, std::map<std::string, std::string>> link; // row -> column -> "PIX"
  std::map<std::string, std::string> cpu_affinity;                // "GPU0" -> "0-55,112-167"
  std::map<std::string, std::string> numa_affinity;               // "GPU0" -> "0"
  std::map<std::string, std::string> nic_names;                   // "NIC0" -> "mlx5_0" (NIC Legend)
};
/// Throws ParseError without a "GPU0" header and rows, or a row with the wrong number of entries.
GpuTopology parse_nvidia_smi_topo(std::string_view text);
/// The NICs closest to a GPU: those its row marks PIX (one PCIe switch), else PXB, else PHB.
std::vector<std::string> closest_nics(const GpuTopology& topo, const std::string& gpu);

struct MstDevice {
  std::string type; // "BlueField3(rev:1)"
  std::string mst;  // "/dev/mst/mt41692_pciconf0"
  std::string pci;  // "3b:00.0"
  std::string rdma; // "mlx5_0"
  std::string net;  // "net-ens1f0np0"
  std::string numa;
};
/// Throws ParseError without the "DEVICE_TYPE ... PCI" header (plain `mst status` lacks it) or rows.
std::vector<MstDevice> parse_mst_status(std::string_view text);

/// "ATF" -> "v2.2(release):4.9.1-21-gfc25b08d9", "UEFI", "BSP" (or "SBIOS", "SBIOS release date"): the
/// first partition's (the primary one where bfver ran without --part); "<partition>.<component>" for
/// each partition, in either order ("mmcblk0boot0.BSP"); "partitions.<partition>" its path; "boot
/// partition" the first; "OS release" (or "Yocto release"). Throws ParseError without any "BlueField
/// <component> version:" line, or where a partition is printed twice.
std::map<std::string, std::string> parse_bfver(std::string_view text);

} // namespace dpusim::calib
