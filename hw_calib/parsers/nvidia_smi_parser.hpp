// `nvidia-smi --query-gpu=<fields> --format=csv,nounits`: a header naming the fields (units in
// brackets, e.g. "memory.total [MiB]") and one line per GPU. Fields are found by name, so the query may
// list them in any order; "[N/A]" and "[Not Supported]" read as absent.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

/// The fields dpusim-calib asks for, in the order it asks.
inline constexpr std::string_view kNvidiaSmiQueryFields =
    "index,name,pci.bus_id,memory.total,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,"
    "pcie.link.width.max,clocks.max.sm,power.limit,driver_version";

struct NvidiaGpu {
  int index = 0;
  std::string name;
  std::string pci_bus_id;
  std::optional<double> memory_total_bytes;
  std::optional<int> pcie_gen_current, pcie_gen_max, pcie_width_current, pcie_width_max;
  std::optional<double> max_sm_clock_hz;
  std::optional<double> power_limit_w;
  std::string driver_version;
};

/// Throws ParseError on a missing header, a line with the wrong number of fields or a bad number.
std::vector<NvidiaGpu> parse_nvidia_smi_query(std::string_view text);

/// Plain `nvidia-smi`: the "NVIDIA-SMI ... Driver Version: ... CUDA Version: ..." banner and, per GPU, a
/// box of two lines ("|   0  NVIDIA H100 80GB HBM3   On  | 00000000:18:00.0 Off | ..." then
/// "| N/A   27C    P0   69W / 700W |   4MiB / 81559MiB | ..."); the "Processes:" box is not read. Index,
/// name, bus id, total memory, power limit and the driver version are kept. Throws ParseError without the
/// banner, without a GPU, or with a GPU box cut short.
std::vector<NvidiaGpu> parse_nvidia_smi_table(std::string_view text);

} // namespace dpusim::calib
