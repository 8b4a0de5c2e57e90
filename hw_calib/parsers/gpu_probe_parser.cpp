#include "hw_calib/parsers/gpu_probe_parser.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <fmt/format.h>

namespace dpusim::calib {

std::vector<GpuProbeRow> GpuProbeReport::rows_of(std::string_view test) const {
  std::vector<GpuProbeRow> out;
  for (const auto& r : rows) {
    if (r.test == test)
      out.push_back(r);
  }
  return out;
}

GpuProbeReport parse_gpu_probe_csv(std::string_view text) {
  GpuProbeReport report;
  bool header = false;
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i + 1);
    const auto line = trim(lines[i]);
    if (line.empty())
      continue;
    if (starts_with(line, "# dpusim-calib-gpu ")) {
      report.format_version = static_cast<int>(parse_integer(line.substr(19)).value_or(0));
      continue;
    }
    if (starts_with(line, "# device:")) {
      const auto f = split_on(trim(line.substr(9)), ',');
      if (f.size() >= 4) {
        report.device_name = std::string(trim(f[1]));
        report.compute_capability = std::string(trim(f[2]));
        report.cuda_runtime = std::string(trim(f[3]));
      }
      continue;
    }
    if (line.front() == '#')
      continue;
    if (report.format_version != 1)
      throw ParseError("dpusim-calib-gpu", line_no, "expected \"# dpusim-calib-gpu 1\" before the data");
    if (!header) {
      if (line != "test,size,iterations,seconds,rate")
        throw ParseError("dpusim-calib-gpu", line_no,
                         "expected the header \"test,size,iterations,seconds,rate\"");
      header = true;
      continue;
    }
    const auto f = split_on(line, ',');
    if (f.size() != 5)
      throw ParseError("dpusim-calib-gpu", line_no, fmt::format("expected 5 fields, found {}", f.size()));
    GpuProbeRow r;
    r.test = std::string(f[0]);
    if (r.test != "h2d_pinned" && r.test != "d2h_pinned" && r.test != "gemm_bf16")
      throw ParseError(
          "dpusim-calib-gpu", line_no,
          fmt::format("unknown test \"{}\"; valid: h2d_pinned, d2h_pinned, gemm_bf16", excerpt(r.test)));
    const auto size = parse_number(f[1]), iters = parse_number(f[2]), secs = parse_number(f[3]),
               rate = parse_number(f[4]);
    if (!size || !iters || !secs || !rate || *rate <= 0)
      throw ParseError("dpusim-calib-gpu", line_no,
                       "size, iterations, seconds and a positive rate must be numbers");
    r.size = *size;
    r.iterations = *iters;
    r.seconds = *secs;
    r.rate = *rate;
    report.rows.push_back(std::move(r));
  }
  if (!header)
    throw ParseError("dpusim-calib-gpu", 0, "no data header found");
  return report;
}

} // namespace dpusim::calib
