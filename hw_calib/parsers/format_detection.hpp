// Which tool printed a recorded output, told from its content (never from the file's name): each format
// has lines that only it prints (nccl-tests' "# Avg bus bandwidth", perftest's "#bytes" header with
// "BW average", fio's "(groupid=", iperf3's "[ ID] Interval", ...).
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace dpusim::calib {

enum class InputFormat {
  nccl_tests,
  perftest_bw,
  perftest_lat,
  fio_json,
  fio_text,
  iperf3_text,
  iperf3_json,
  openssl_speed,
  ethtool_features,
  ethtool_driver,
  lscpu_text,
  lscpu_json,
  nvidia_smi_query,
  nvidia_smi_table,
  nvidia_smi_topo,
  ibv_devinfo,
  ibstat,
  mst_status,
  bfver,
};

/// "nccl-tests", "perftest bandwidth (ib_*_bw)", ...
std::string_view format_name(InputFormat format);
std::span<const InputFormat> all_formats();

/// nullopt when the text is none of the formats.
std::optional<InputFormat> detect_format(std::string_view text);

} // namespace dpusim::calib
