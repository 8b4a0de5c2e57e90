#include "hw_calib/parsers/openssl_speed_parser.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <fmt/format.h>

namespace dpusim::calib {

OpensslSpeedReport parse_openssl_speed(std::string_view text) {
  constexpr const char* kTool = "openssl speed";
  OpensslSpeedReport report;
  const auto lines = split_lines(text);
  bool units_seen = false;
  std::vector<double> sizes;
  int children = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = trim(lines[i]);
    const int line_no = static_cast<int>(i + 1);
    if (line.empty())
      continue;
    if (starts_with(line, "version:"))
      report.version = std::string(trim(line.substr(8)));
    else if (starts_with(line, "OpenSSL ") && report.version.empty())
      report.version = std::string(split_whitespace(line)[1]);
    else if (starts_with(line, "Forked child"))
      ++children;
    else if (line.find("elapsed time") != std::string_view::npos ||
             starts_with(line, "You have chosen to measure elapsed time"))
      report.elapsed = true;
    else if (starts_with(line, "The 'numbers' are in 1000s of bytes per second"))
      units_seen = true;
    else if (units_seen && starts_with(line, "type ")) {
      const auto f = split_whitespace(line);
      sizes.clear();
      for (std::size_t k = 1; k + 1 < f.size(); k += 2) {
        const auto n = parse_number(f[k]);
        if (!n || f[k + 1] != "bytes")
          throw ParseError(
              kTool, line_no,
              fmt::format("expected \"type <n> bytes <n> bytes ...\", found \"{}\"", excerpt(line)));
        sizes.push_back(*n);
      }
    } else if (!sizes.empty()) {
      const auto f = split_whitespace(line);
      if (f.size() < 2 || !f.back().ends_with("k"))
        continue; // e.g. the RSA/ECDSA tables of a full run
      if (f.size() != sizes.size() + 1)
        throw ParseError(kTool, line_no,
                         fmt::format("expected the algorithm and {} rates, found \"{}\" (cut short?)",
                                     sizes.size(), excerpt(line)));
      OpensslSpeedRow row;
      row.line = line_no;
      row.algorithm = std::string(f[0]);
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        auto v = f[k + 1];
        if (!v.ends_with("k"))
          throw ParseError(kTool, line_no,
                           fmt::format("rate \"{}\" does not end in k (1000s of bytes/s)", excerpt(v)));
        v.remove_suffix(1);
        const auto n = parse_number(v);
        if (!n)
          throw ParseError(kTool, line_no, fmt::format("rate \"{}k\" is not a number", excerpt(v)));
        row.rate_Bps[sizes[k]] = *n * 1000.0;
      }
      report.rows.push_back(std::move(row));
    }
  }
  if (!units_seen)
    throw ParseError(
        kTool, 0,
        "no \"The 'numbers' are in 1000s of bytes per second processed.\" line: not the end of an "
        "openssl speed run (cut short?)");
  if (sizes.empty())
    throw ParseError(kTool, 0, "no \"type 16 bytes 64 bytes ...\" header");
  if (report.rows.empty())
    throw ParseError(kTool, 0, "the result table has no rows (cut short?)");
  report.processes = std::max(1, children);
  return report;
}

} // namespace dpusim::calib
