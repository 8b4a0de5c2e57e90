#include "hw_calib/parsers/fio_parser.hpp"

#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace dpusim::calib {
namespace {

double number(const YAML::Node& n, const char* key) {
  const YAML::Node v = n[key];
  if (!v || !v.IsScalar())
    return 0;
  return parse_number(v.Scalar()).value_or(0);
}

FioDirection read_direction(const YAML::Node& n) {
  FioDirection d;
  if (!n || !n.IsMap())
    return d;
  d.io_bytes = number(n, "io_bytes");
  d.bw_Bps = number(n, "bw_bytes");
  if (d.bw_Bps == 0)
    d.bw_Bps = number(n, "bw") * 1024.0; // older fio: KiB/s only
  d.iops = number(n, "iops");
  d.runtime_s = number(n, "runtime") * 1e-3;
  const YAML::Node clat = n["clat_ns"];
  if (clat && clat.IsMap()) {
    if (clat["mean"])
      d.clat_mean_s = number(clat, "mean") * 1e-9;
    const YAML::Node pct = clat["percentile"];
    if (pct && pct.IsMap()) {
      for (const auto& kv : pct) {
        const auto p = parse_number(kv.first.Scalar());
        const auto v = parse_number(kv.second.Scalar());
        if (p && v)
          d.clat_percentiles_s[*p] = *v * 1e-9;
      }
    }
  }
  return d;
}

} // namespace

FioReport parse_fio_json(std::string_view text) {
  // The JSON object starts at the first line that begins with '{'.
  std::size_t start = std::string_view::npos;
  int line_no = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{' && (i == 0 || text[i - 1] == '\n')) {
      start = i;
      break;
    }
    if (text[i] == '\n')
      ++line_no;
  }
  if (start == std::string_view::npos)
    throw ParseError("fio", 0, "no JSON object found; run fio with --output-format=json");
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text.substr(start)));
  } catch (const YAML::Exception& e) {
    throw ParseError("fio", line_no + e.mark.line, fmt::format("malformed JSON: {}", e.msg));
  }
  if (!root.IsMap() || !root["jobs"] || !root["jobs"].IsSequence())
    throw ParseError("fio", line_no, "the JSON object has no \"jobs\" array");
  FioReport report;
  if (root["fio version"])
    report.version = root["fio version"].Scalar();
  for (const auto& j : root["jobs"]) {
    FioJob job;
    if (j["jobname"])
      job.name = j["jobname"].Scalar();
    job.error = static_cast<int>(number(j, "error"));
    const YAML::Node opts = j["job options"];
    if (opts && opts.IsMap()) {
      if (opts["rw"])
        job.rw = opts["rw"].Scalar();
      if (opts["bs"])
        job.bs = opts["bs"].Scalar();
    }
    job.read = read_direction(j["read"]);
    job.write = read_direction(j["write"]);
    job.usr_cpu_percent = number(j, "usr_cpu");
    job.sys_cpu_percent = number(j, "sys_cpu");
    report.jobs.push_back(std::move(job));
  }
  if (report.jobs.empty())
    throw ParseError("fio", line_no, "the \"jobs\" array is empty");
  return report;
}

} // namespace dpusim::calib
