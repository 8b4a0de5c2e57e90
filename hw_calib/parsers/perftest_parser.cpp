#include "hw_calib/parsers/perftest_parser.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <map>
#include <span>

namespace dpusim::calib {
namespace {

constexpr double kMiB = 1048576.0;
constexpr double kGbit = 1e9 / 8.0;

// The column labels of a header line, in the order they appear.
std::vector<std::string> header_columns(std::string_view header, std::span<const std::string_view> known) {
  std::vector<std::pair<std::size_t, std::string>> found;
  for (const auto label : known) {
    const auto pos = header.find(label);
    if (pos == std::string_view::npos)
      continue;
    // "t_avg[usec]" must not also match inside a longer label; labels are separated by spaces.
    const bool starts = pos == 0 || header[pos - 1] == ' ' || header[pos - 1] == '\t';
    if (starts)
      found.emplace_back(pos, std::string(label));
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found)
    out.push_back(std::move(f.second));
  return out;
}

std::string info_value(std::string_view line, std::string_view key) {
  // " Device         : mlx5_0\t\tTransport type : IB" — two "key : value" pairs may share a line.
  const auto pos = line.find(key);
  if (pos == std::string_view::npos)
    return {};
  auto rest = line.substr(pos + key.size());
  const auto colon = rest.find(':');
  if (colon == std::string_view::npos || !trim(rest.substr(0, colon)).empty())
    return {};
  rest = rest.substr(colon + 1);
  const auto tab = rest.find('\t');
  return std::string(trim(rest.substr(0, tab)));
}

PerftestInfo read_info(const std::vector<std::string_view>& lines) {
  PerftestInfo info;
  for (const auto line : lines) {
    const auto t = trim(line);
    if (info.test.empty() && (t.ends_with(" Test") || t.ends_with(" test")) &&
        t.find(':') == std::string_view::npos)
      info.test = std::string(t);
    if (auto v = info_value(line, "Device"); !v.empty() && info.device.empty())
      info.device = v;
    if (auto v = info_value(line, "Link type"); !v.empty())
      info.link_type = v;
    if (auto v = info_value(line, "Transport type"); !v.empty())
      info.transport = v;
  }
  return info;
}

struct Table {
  std::vector<std::string> columns;
  std::vector<std::pair<int, std::vector<double>>> rows; // line number, values
};

Table read_table(const std::vector<std::string_view>& lines, std::span<const std::string_view> known,
                 const std::string& tool) {
  Table table;
  bool closed = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto t = trim(lines[i]);
    if (table.columns.empty()) {
      if (starts_with(t, "#bytes"))
        table.columns = header_columns(lines[i], known);
      continue;
    }
    if (t.empty())
      continue;
    if (t.front() == '-') {
      // perftest closes its table with a dashed line (RESULT_LINE); what follows is not the table.
      if (!table.rows.empty()) {
        closed = true;
        break;
      }
      continue;
    }
    const auto fields = split_whitespace(t);
    if (fields.empty() || !parse_number(fields[0]))
      continue; // warnings such as "Conflicting CPU frequency values detected"
    std::vector<double> values;
    for (const auto f : fields) {
      const auto v = parse_number(f);
      if (!v)
        break;
      values.push_back(*v);
    }
    if (values.size() < table.columns.size())
      throw ParseError(
          tool, static_cast<int>(i + 1),
          fmt::format("expected {} numbers ({}), found \"{}\"{}", table.columns.size(),
                      fmt::join(table.columns, ", "), excerpt(t),
                      i + 1 >= lines.size() ? " (the output ends inside this line: cut short)" : ""));
    for (const double v : values)
      if (v < 0)
        throw ParseError(
            tool, static_cast<int>(i + 1),
            fmt::format("a negative value in \"{}\": every column is a size, count, rate or time",
                        excerpt(t)));
    table.rows.emplace_back(static_cast<int>(i + 1), std::move(values));
  }
  if (table.columns.empty())
    throw ParseError(tool, 0, "no result header (a line starting with \"#bytes\") was found");
  if (table.rows.empty())
    throw ParseError(
        tool, 0,
        "the result table has no rows (the server side of an RDMA write or read test prints none: "
        "give the client's output)");
  if (!closed)
    throw ParseError(
        tool, static_cast<int>(lines.size()),
        fmt::format("the table has no closing dashed line after its last row (line {}): the output "
                    "is incomplete (cut short, or the test was stopped)",
                    table.rows.back().first));
  return table;
}

std::size_t column(const Table& t, std::string_view label) {
  const auto it = std::find(t.columns.begin(), t.columns.end(), label);
  return it == t.columns.end() ? t.columns.size() : static_cast<std::size_t>(it - t.columns.begin());
}

} // namespace

PerftestInfo parse_perftest_info(std::string_view text) {
  return read_info(split_lines(text));
}

PerftestBwReport parse_perftest_bw(std::string_view text) {
  static constexpr std::array<std::string_view, 9> kKnown{"#bytes",
                                                          "#iterations",
                                                          "#sl",
                                                          "BW peak[MB/sec]",
                                                          "BW average[MB/sec]",
                                                          "BW peak[Gb/sec]",
                                                          "BW average[Gb/sec]",
                                                          "MsgRate[Mpps]",
                                                          "#qps"};
  const auto lines = split_lines(text);
  const Table t = read_table(lines, kKnown, "perftest bandwidth test");
  const bool gbits = column(t, "BW average[Gb/sec]") < t.columns.size();
  const double unit = gbits ? kGbit : kMiB;
  const auto c_bytes = column(t, "#bytes");
  const auto c_iters = column(t, "#iterations");
  const auto c_peak = column(t, gbits ? "BW peak[Gb/sec]" : "BW peak[MB/sec]");
  const auto c_avg = column(t, gbits ? "BW average[Gb/sec]" : "BW average[MB/sec]");
  const auto c_rate = column(t, "MsgRate[Mpps]");
  if (c_avg >= t.columns.size())
    throw ParseError("perftest bandwidth test", 0,
                     "the header has no \"BW average[MB/sec]\" or \"BW average[Gb/sec]\" column");
  PerftestBwReport report;
  report.info = read_info(lines);
  for (const auto& [line, v] : t.rows) {
    PerftestBwRow r;
    r.bytes = v[c_bytes];
    r.iterations = c_iters < v.size() ? v[c_iters] : 0;
    r.bw_peak_Bps = c_peak < v.size() ? v[c_peak] * unit : 0;
    r.bw_average_Bps = v[c_avg] * unit;
    r.msg_rate_mpps = c_rate < v.size() ? v[c_rate] : 0;
    report.rows.push_back(r);
  }
  return report;
}

PerftestLatReport parse_perftest_lat(std::string_view text) {
  static constexpr std::array<std::string_view, 9> kKnown{
      "#bytes",      "#iterations",   "t_min[usec]",          "t_max[usec]",           "t_typical[usec]",
      "t_avg[usec]", "t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]"};
  const auto lines = split_lines(text);
  const Table t = read_table(lines, kKnown, "perftest latency test");
  const auto c = [&](std::string_view label) { return column(t, label); };
  for (const auto required : {"#bytes", "t_min[usec]", "t_max[usec]", "t_typical[usec]"}) {
    if (c(required) >= t.columns.size())
      throw ParseError("perftest latency test", 0, fmt::format("the header has no \"{}\" column", required));
  }
  auto opt = [&](const std::vector<double>& v, std::string_view label) -> std::optional<double> {
    const auto i = c(label);
    if (i >= v.size())
      return std::nullopt;
    return v[i] * 1e-6;
  };
  PerftestLatReport report;
  report.info = read_info(lines);
  for (const auto& [line, v] : t.rows) {
    PerftestLatRow r;
    r.bytes = v[c("#bytes")];
    r.iterations = c("#iterations") < v.size() ? v[c("#iterations")] : 0;
    r.t_min_s = v[c("t_min[usec]")] * 1e-6;
    r.t_max_s = v[c("t_max[usec]")] * 1e-6;
    r.t_typical_s = v[c("t_typical[usec]")] * 1e-6;
    r.t_avg_s = opt(v, "t_avg[usec]");
    r.t_stdev_s = opt(v, "t_stdev[usec]");
    r.p99_s = opt(v, "99% percentile[usec]");
    r.p999_s = opt(v, "99.9% percentile[usec]");
    report.rows.push_back(r);
  }
  return report;
}

} // namespace dpusim::calib
