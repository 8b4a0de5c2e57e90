// fio's JSON output (--output-format=json): per job, the read and write sides with bytes, bandwidth,
// IOPS, completion-latency percentiles and the job's CPU use. yaml-cpp reads the JSON (JSON is YAML 1.2
// flow syntax), so no extra library is needed.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct FioDirection {
  double io_bytes = 0;
  double bw_Bps = 0;
  double iops = 0;
  double runtime_s = 0;
  std::optional<double> clat_mean_s;
  std::map<double, double> clat_percentiles_s; // percentile (e.g. 99.9) -> seconds
};

struct FioJob {
  std::string name;
  std::string rw; // from job options when present ("read", "randread")
  std::string bs; // from job options when present ("1M", "4k")
  int error = 0;
  int jobs = 1;    // the processes this result sums (numjobs with group_reporting: "jobs=N")
  int iodepth = 1; // reads kept in flight (job options' iodepth; the job line's "iodepth=N")
  FioDirection read;
  FioDirection write;
  double usr_cpu_percent = 0; // of one CPU, over the job's runtime
  double sys_cpu_percent = 0;
};

struct FioReport {
  std::string version; // "fio-3.33"
  std::vector<FioJob> jobs;
};

/// Text before the JSON object (fio prints notes such as "note: both iodepth >= 1 and synchronous I/O
/// engine are selected") is skipped. Throws ParseError on malformed output or without jobs.
FioReport parse_fio_json(std::string_view text);
/// fio's normal (human-readable) output: the job line ("<job>: (g=0): rw=read, bs=(R) 1024KiB-..."),
/// the version line, and per job "read: IOPS=..., BW=...(<bytes>/<runtime>)" and "cpu : usr=..%, sys=..%"
/// (fio's stat.c show_ddir_status / show_thread_status). Throws ParseError without a job result.
FioReport parse_fio_text(std::string_view text);

} // namespace dpusim::calib
