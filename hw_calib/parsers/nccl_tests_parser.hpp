// nccl-tests output (all_reduce_perf and the other *_perf programs): one row per message size with
// out-of-place and in-place time (us), algorithm bandwidth and bus bandwidth (GB/s = 10^9 B/s), as in
// nccl-tests' doc/PERFORMANCE.md. Lines prefixed by mpirun ("[1,0]<stdout>:") are accepted.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct NcclTestsRow {
  double size_bytes = 0;
  double count = 0;
  std::string type;
  std::string redop;
  double oop_time_s = 0;
  double oop_algbw_Bps = 0;
  double oop_busbw_Bps = 0;
  std::optional<double> ip_time_s; // absent when only one set of columns is printed
  std::optional<double> ip_algbw_Bps;
  std::optional<double> ip_busbw_Bps;
  [[nodiscard]] double best_busbw_Bps() const;
  [[nodiscard]] double best_time_s() const;
};

struct NcclTestsReport {
  std::string version;    // "2.13.9" from "# nccl-tests version ..." when printed
  std::string collective; // "all_reduce_perf" when printed
  int ranks = 0;          // number of "#  Rank" device lines
  std::optional<double> avg_busbw_Bps;
  std::vector<NcclTestsRow> rows;
};

/// Throws ParseError when no result row is found or a row does not have the documented columns.
NcclTestsReport parse_nccl_tests(std::string_view text);

} // namespace dpusim::calib
