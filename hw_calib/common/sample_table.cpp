#include "hw_calib/common/sample_table.hpp"

#include "hw_calib/common/text.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace dpusim::calib {

void SampleTable::add(std::string_view series, long long index, double size_bytes, std::string_view metric,
                      double value) {
  samples_.push_back(Sample{std::string(series), index, size_bytes, std::string(metric), value});
}

void SampleTable::append(const SampleTable& other) {
  samples_.insert(samples_.end(), other.samples_.begin(), other.samples_.end());
}

std::string SampleTable::to_csv() const {
  std::string out = "series,index,size_bytes,metric,value\n";
  out.reserve(out.size() + samples_.size() * 48);
  for (const auto& s : samples_)
    out += fmt::format("{},{},{:.0f},{},{:.9g}\n", s.series, s.index, s.size_bytes, s.metric, s.value);
  return out;
}

SampleTable parse_sample_csv(std::string_view text) {
  SampleTable table;
  const auto lines = split_lines(text);
  if (lines.empty() || trim(lines.front()) != "series,index,size_bytes,metric,value")
    throw std::invalid_argument(
        "raw samples CSV: the first line must be \"series,index,size_bytes,metric,value\"");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (trim(lines[i]).empty())
      continue;
    const auto f = split_on(lines[i], ',');
    const auto index = f.size() == 5 ? parse_integer(f[1]) : std::nullopt;
    const auto size = f.size() == 5 ? parse_number(f[2]) : std::nullopt;
    const auto value = f.size() == 5 ? parse_number(f[4]) : std::nullopt;
    if (!index || !size || !value)
      throw std::invalid_argument(
          fmt::format("raw samples CSV line {}: expected 5 fields series,index,size_bytes,"
                      "metric,value with numbers in fields 2, 3 and 5",
                      i + 1));
    table.add(f[0], *index, *size, f[3], *value);
  }
  return table;
}

} // namespace dpusim::calib
