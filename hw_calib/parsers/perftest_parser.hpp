// perftest (linux-rdma/perftest) result tables, as printed by ib_write_bw / ib_send_bw and
// ib_write_lat / ib_send_lat. Columns are located by the labels of the header line (perftest's
// RESULT_FMT* strings), so older versions with fewer latency columns parse too. Units: "MB/sec" in
// perftest is 2^20 bytes per second, "Gb/sec" (with --report_gbits) is 10^9 bits per second.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct PerftestBwRow {
  double bytes = 0;
  double iterations = 0;
  double bw_peak_Bps = 0;
  double bw_average_Bps = 0;
  double msg_rate_mpps = 0;
};

struct PerftestLatRow {
  double bytes = 0;
  double iterations = 0;
  double t_min_s = 0;
  double t_max_s = 0;
  double t_typical_s = 0;
  std::optional<double> t_avg_s;
  std::optional<double> t_stdev_s;
  std::optional<double> p99_s;
  std::optional<double> p999_s;
};

struct PerftestInfo {
  std::string test;      // e.g. "RDMA_Write BW Test"
  std::string device;    // e.g. "mlx5_0"
  std::string link_type; // "Ethernet" or "IB"
  std::string transport; // e.g. "IB"
};

struct PerftestBwReport {
  PerftestInfo info;
  std::vector<PerftestBwRow> rows;
};

struct PerftestLatReport {
  PerftestInfo info;
  std::vector<PerftestLatRow> rows;
};

/// The block perftest prints before its table (ctx_print_test_info): the test's name, device, link type.
PerftestInfo parse_perftest_info(std::string_view text);

/// Throws ParseError when there is no result header, no result row, a negative value, or no closing
/// dashed line after the rows (the output was cut short).
PerftestBwReport parse_perftest_bw(std::string_view text);
PerftestLatReport parse_perftest_lat(std::string_view text);

} // namespace dpusim::calib
