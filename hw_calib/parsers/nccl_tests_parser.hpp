// nccl-tests output (all_reduce_perf and the other *_perf programs): one row per message size with
// out-of-place and in-place time (us), algorithm bandwidth and bus bandwidth (GB/s = 10^9 B/s), as in
// nccl-tests' doc/PERFORMANCE.md and src/common.cu. Lines prefixed by mpirun ("[1,0]<stdout>:") are
// accepted, and so are the older layouts without the "root" or "redop" columns (found from the column
// header when it is printed, from the row itself otherwise). Each table must end with the lines
// nccl-tests prints after the last size ("# Out of bounds values" and "# Avg bus bandwidth"): a log
// cut short is reported, not read as a run that stopped at a small size.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct NcclTestsRow {
  int line = 0; // in the text, 1-based
  double size_bytes = 0;
  double count = 0;
  std::string type;
  std::string redop; // empty in layouts without the column
  std::optional<long long> root;
  double oop_time_s = 0;
  double oop_algbw_Bps = 0;
  double oop_busbw_Bps = 0;
  std::optional<long long> oop_wrong; // absent when printed "N/A" (run with -c 0)
  std::optional<double> ip_time_s;    // absent when only one set of columns is printed
  std::optional<double> ip_algbw_Bps;
  std::optional<double> ip_busbw_Bps;
  std::optional<long long> ip_wrong;
  [[nodiscard]] double best_busbw_Bps() const;
  [[nodiscard]] double best_algbw_Bps() const;
  [[nodiscard]] double best_time_s() const;
};

struct NcclTestsReport {
  std::string version;    // "2.13.9" from "# nccl-tests version ..." when printed
  std::string collective; // "all_reduce_perf" when printed, else inferred (see collective_name)
  bool collective_inferred = false;
  int ranks = 0;                      // number of "#  Rank" device lines
  std::set<std::string> hosts;        // the hosts those lines name ("... Pid 1234 on HOST device ...")
  std::optional<int> gpus_per_thread; // "nGpus" of the "# nThread" line
  std::optional<double> avg_busbw_Bps;
  std::optional<long long> out_of_bounds; // "# Out of bounds values : N OK|FAILED"
  int first_line = 0;                     // the table's first row
  int footer_line = 0;                    // its "# Out of bounds values" or "# Avg bus bandwidth" line
  std::vector<NcclTestsRow> rows;
};

/// Every table in the text, in order (a log may hold the runs of several *_perf programs). Throws
/// ParseError for a row without the documented columns, a table without its closing lines (the log
/// is incomplete) and a text with no table at all.
std::vector<NcclTestsReport> parse_nccl_tests_runs(std::string_view text);
/// The all-reduce table of the text (or its only table); ParseError when there is none or several.
NcclTestsReport parse_nccl_tests(std::string_view text);

/// Whether the text looks like nccl-tests output (for recognising a file's format).
bool looks_like_nccl_tests(std::string_view text);

} // namespace dpusim::calib
