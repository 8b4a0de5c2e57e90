// Raw samples of one probe, written to <out>/raw/<probe>.csv in one long format shared by all probes:
//   series,index,size_bytes,metric,value
// `series` names one experiment of the probe (e.g. "tx_window", "rr_latency"), `metric` carries its unit
// in its name (e.g. "cpu_s", "rtt_s", "bytes"). A profile parameter points at its samples as
// "raw/<probe>.csv#<series>".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct Sample {
  std::string series;
  long long index = 0;
  double size_bytes = 0;
  std::string metric;
  double value = 0;
};

class SampleTable {
public:
  void add(std::string_view series, long long index, double size_bytes, std::string_view metric,
           double value);
  [[nodiscard]] const std::vector<Sample>& samples() const { return samples_; }
  [[nodiscard]] bool empty() const { return samples_.empty(); }
  [[nodiscard]] std::size_t size() const { return samples_.size(); }
  /// The CSV text with its header row.
  [[nodiscard]] std::string to_csv() const;
  void append(const SampleTable& other);

private:
  std::vector<Sample> samples_;
};

/// Parses a CSV written by SampleTable::to_csv (used by tests and tools that re-fit raw data).
SampleTable parse_sample_csv(std::string_view text);

} // namespace dpusim::calib
