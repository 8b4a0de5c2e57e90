#include "hw_calib/parsers/format_detection.hpp"

#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/nccl_tests_parser.hpp"

#include <array>

namespace dpusim::calib {

std::string_view format_name(InputFormat format) {
  switch (format) {
  case InputFormat::nccl_tests:
    return "nccl-tests (*_perf)";
  case InputFormat::perftest_bw:
    return "perftest bandwidth (ib_write_bw, ib_read_bw, ib_send_bw)";
  case InputFormat::perftest_lat:
    return "perftest latency (ib_write_lat, ib_read_lat, ib_send_lat)";
  case InputFormat::fio_json:
    return "fio --output-format=json";
  case InputFormat::fio_text:
    return "fio (normal output)";
  case InputFormat::iperf3_text:
    return "iperf3 (text)";
  case InputFormat::iperf3_json:
    return "iperf3 -J";
  case InputFormat::openssl_speed:
    return "openssl speed";
  case InputFormat::ethtool_features:
    return "ethtool -k";
  case InputFormat::ethtool_driver:
    return "ethtool -i";
  case InputFormat::lscpu_text:
    return "lscpu";
  case InputFormat::lscpu_json:
    return "lscpu -J";
  case InputFormat::nvidia_smi_query:
    return "nvidia-smi --query-gpu --format=csv";
  case InputFormat::nvidia_smi_table:
    return "nvidia-smi";
  case InputFormat::nvidia_smi_topo:
    return "nvidia-smi topo -m";
  case InputFormat::ibv_devinfo:
    return "ibv_devinfo";
  case InputFormat::ibstat:
    return "ibstat";
  case InputFormat::mst_status:
    return "mst status -v";
  case InputFormat::bfver:
    return "bfver";
  }
  return "unknown";
}

std::span<const InputFormat> all_formats() {
  static constexpr std::array kAll{InputFormat::nccl_tests,
                                   InputFormat::perftest_bw,
                                   InputFormat::perftest_lat,
                                   InputFormat::fio_json,
                                   InputFormat::fio_text,
                                   InputFormat::iperf3_text,
                                   InputFormat::iperf3_json,
                                   InputFormat::openssl_speed,
                                   InputFormat::ethtool_features,
                                   InputFormat::ethtool_driver,
                                   InputFormat::lscpu_text,
                                   InputFormat::lscpu_json,
                                   InputFormat::nvidia_smi_query,
                                   InputFormat::nvidia_smi_table,
                                   InputFormat::nvidia_smi_topo,
                                   InputFormat::ibv_devinfo,
                                   InputFormat::ibstat,
                                   InputFormat::mst_status,
                                   InputFormat::bfver};
  return kAll;
}

namespace {

bool contains(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

} // namespace

std::optional<InputFormat> detect_format(std::string_view whole) {
  const std::string_view text = whole.substr(0, 1u << 20);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    return std::nullopt;
  const bool json_first = text[first] == '{';
  if (json_first || contains(text, "\n{")) {
    if (contains(text, "\"fio version\"") ||
        (contains(text, "\"jobs\"") && contains(text, "\"job options\"")))
      return InputFormat::fio_json;
    if (json_first && contains(text, "\"lscpu\""))
      return InputFormat::lscpu_json;
    if (json_first && contains(text, "\"start\"") &&
        (contains(text, "\"test_start\"") || contains(text, "\"connecting_to\"") ||
         contains(text, "\"accepted_connection\"")))
      return InputFormat::iperf3_json;
  }
  if (looks_like_nccl_tests(text))
    return InputFormat::nccl_tests;
  const auto lines = split_lines(text);
  bool lscpu_arch = false, lscpu_cpus = false, eth_driver = false, eth_bus = false, bf_version = false;
  for (const auto raw : lines) {
    const auto line = trim(raw);
    if (line.empty())
      continue;
    if (starts_with(line, "#bytes")) {
      if (contains(line, "BW average") || contains(line, "BW peak"))
        return InputFormat::perftest_bw;
      if (contains(line, "t_typical") || contains(line, "t_min[usec]") || contains(line, "t_avg[usec]"))
        return InputFormat::perftest_lat;
    }
    if ((line.ends_with(" BW Test") || line.ends_with(" Latency Test")) && !contains(line, ":"))
      return line.ends_with(" BW Test") ? InputFormat::perftest_bw : InputFormat::perftest_lat;
    if (starts_with(line, "The 'numbers' are in 1000s of bytes per second") ||
        starts_with(line, "Doing aes-") || starts_with(line, "Doing AES-"))
      return InputFormat::openssl_speed;
    if (starts_with(line, "Features for ") && line.ends_with(":"))
      return InputFormat::ethtool_features;
    if (starts_with(line, "hca_id:"))
      return InputFormat::ibv_devinfo;
    if (starts_with(line, "CA '"))
      return InputFormat::ibstat;
    if ((starts_with(line, "DEVICE_TYPE") && contains(line, "PCI")) || starts_with(line, "MST modules:") ||
        starts_with(line, "MST devices:"))
      return InputFormat::mst_status;
    if (starts_with(line, "GPU0") &&
        (contains(line, "CPU Affinity") || contains(line, "GPU1") || contains(line, "NIC0")))
      return InputFormat::nvidia_smi_topo;
    if (starts_with(line, "|") && contains(line, "NVIDIA-SMI") && contains(line, "Driver Version"))
      return InputFormat::nvidia_smi_table;
    if (starts_with(line, "index,") && contains(line, "name"))
      return InputFormat::nvidia_smi_query;
    if (starts_with(line, "[ ID] Interval") || starts_with(line, "Server listening on") ||
        starts_with(line, "Connecting to host") || starts_with(line, "iperf Done."))
      return InputFormat::iperf3_text;
    if (contains(line, ": (groupid=") || (contains(line, ": (g=") && contains(line, "rw=")))
      return InputFormat::fio_text;
    if (starts_with(line, "Architecture:"))
      lscpu_arch = true;
    if (starts_with(line, "CPU(s):"))
      lscpu_cpus = true;
    if (starts_with(line, "driver:"))
      eth_driver = true;
    if (starts_with(line, "bus-info:"))
      eth_bus = true;
    if (starts_with(line, "BlueField ") && contains(line, " version:") &&
        (contains(line, "ATF") || contains(line, "UEFI") || contains(line, "BSP") || contains(line, "SBIOS")))
      bf_version = true;
  }
  if (lscpu_arch && lscpu_cpus)
    return InputFormat::lscpu_text;
  if (eth_driver && eth_bus)
    return InputFormat::ethtool_driver;
  if (bf_version)
    return InputFormat::bfver;
  return std::nullopt;
}

} // namespace dpusim::calib
