#include "hw_calib/parsers/nccl_tests_parser.hpp"

#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace dpusim::calib {
namespace {

std::string_view strip_mpi_prefix(std::string_view line) {
  // "[1,0]<stdout>:" as added by Open MPI's --tag-output.
  if (!line.empty() && line.front() == '[') {
    const auto close = line.find("]<");
    const auto colon = line.find(">:");
    if (close != std::string_view::npos && colon != std::string_view::npos && colon > close)
      return line.substr(colon + 2);
  }
  return line;
}

} // namespace

double NcclTestsRow::best_busbw_Bps() const {
  return std::max(oop_busbw_Bps, ip_busbw_Bps.value_or(0.0));
}

double NcclTestsRow::best_time_s() const {
  return ip_time_s ? std::min(oop_time_s, *ip_time_s) : oop_time_s;
}

NcclTestsReport parse_nccl_tests(std::string_view text) {
  NcclTestsReport report;
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = trim(strip_mpi_prefix(lines[i]));
    const int line_no = static_cast<int>(i + 1);
    if (line.empty())
      continue;
    if (line.front() == '#') {
      const auto body = trim(line.substr(1));
      if (starts_with(body, "nccl-tests version")) {
        const auto f = split_whitespace(body);
        if (f.size() >= 3)
          report.version = std::string(f[2]);
      } else if (starts_with(body, "Collective test starting:")) {
        report.collective =
            std::string(trim(body.substr(std::string_view("Collective test starting:").size())));
      } else if (starts_with(body, "Rank")) {
        ++report.ranks;
      } else if (starts_with(body, "Avg bus bandwidth")) {
        const auto colon = body.find(':');
        const auto f = split_whitespace(body.substr(colon + 1));
        if (!f.empty())
          if (const auto v = parse_number(f[0]))
            report.avg_busbw_Bps = *v * 1e9;
      }
      continue;
    }
    const auto f = split_whitespace(line);
    if (f.empty() || !parse_integer(f[0]))
      continue; // NCCL INFO/WARN lines and other chatter
    // size count type redop root time algbw busbw #wrong [time algbw busbw #wrong]
    if (f.size() != 9 && f.size() != 13)
      throw ParseError("nccl-tests", line_no,
                       fmt::format("expected 9 or 13 columns (size count type redop root time algbw busbw "
                                   "#wrong, then in-place time algbw busbw #wrong), found {}: \"{}\"",
                                   f.size(), std::string(line)));
    auto num = [&](std::size_t k, const char* what) {
      const auto v = parse_number(f[k]);
      if (!v)
        throw ParseError("nccl-tests", line_no,
                         fmt::format("{} \"{}\" is not a number", what, std::string(f[k])));
      return *v;
    };
    NcclTestsRow row;
    row.size_bytes = num(0, "size");
    row.count = num(1, "count");
    row.type = std::string(f[2]);
    row.redop = std::string(f[3]);
    row.oop_time_s = num(5, "time") * 1e-6;
    row.oop_algbw_Bps = num(6, "algbw") * 1e9;
    row.oop_busbw_Bps = num(7, "busbw") * 1e9;
    if (f.size() == 13) {
      row.ip_time_s = num(9, "in-place time") * 1e-6;
      row.ip_algbw_Bps = num(10, "in-place algbw") * 1e9;
      row.ip_busbw_Bps = num(11, "in-place busbw") * 1e9;
    }
    report.rows.push_back(std::move(row));
  }
  if (report.rows.empty())
    throw ParseError("nccl-tests", 0, "no result rows (lines starting with a message size) were found");
  return report;
}

} // namespace dpusim::calib
