#include "hw_calib/parsers/fio_parser.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/json_text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <cctype>
#include <fmt/format.h>
#include <map>
#include <utility>
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

// "1256MiB/s", "70.6MB/s", "512KiB/s" -> bytes per second; "2513MiB" -> bytes.
std::optional<double> fio_quantity(std::string_view text) {
  std::string_view t = text;
  if (t.ends_with("/s"))
    t.remove_suffix(2);
  std::size_t digits = 0;
  while (digits < t.size() && (std::isdigit(static_cast<unsigned char>(t[digits])) != 0 || t[digits] == '.'))
    ++digits;
  const auto v = parse_number(t.substr(0, digits));
  if (!v)
    return std::nullopt;
  const auto unit = t.substr(digits);
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"B", 1},    {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"kB", 1e3}, {"KB", 1e3},     {"MB", 1e6},        {"GB", 1e9},           {"TB", 1e12}};
  for (const auto& [name, factor] : kUnits)
    if (unit == name)
      return *v * factor;
  return std::nullopt;
}

// "17.2k" -> 17200 (fio's IOPS with a decimal suffix).
std::optional<double> fio_count(std::string_view text) {
  double factor = 1;
  if (!text.empty() && (text.back() == 'k' || text.back() == 'm' || text.back() == 'M')) {
    factor = text.back() == 'k' ? 1e3 : 1e6;
    text.remove_suffix(1);
  }
  const auto v = parse_number(text);
  return v ? std::optional<double>(*v * factor) : std::nullopt;
}

// "key=value" of a comma-separated fio line ("IOPS=1255, BW=1256MiB/s (1317MB/s)(2513MiB/2001msec)").
std::string_view field_value(std::string_view line, std::string_view key) {
  std::size_t pos = 0;
  while ((pos = line.find(key, pos)) != std::string_view::npos) {
    const bool boundary = pos == 0 || line[pos - 1] == ' ' || line[pos - 1] == ',' || line[pos - 1] == ':';
    if (boundary && pos + key.size() < line.size() && line[pos + key.size()] == '=') {
      auto rest = line.substr(pos + key.size() + 1);
      rest = trim(rest);
      const auto stop = rest.find_first_of(", (");
      return rest.substr(0, stop);
    }
    pos += key.size();
  }
  return {};
}

} // namespace

FioReport parse_fio_json(std::string_view text) {
  const YAML::Node root = parse_json_text(text, "fio");
  const int line_no = 0;
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
    // A job file's [global] section lands in "global options"; the job's own options override it.
    for (const YAML::Node& opts : {root["global options"], j["job options"]}) {
      if (!opts || !opts.IsMap())
        continue;
      if (opts["rw"])
        job.rw = opts["rw"].Scalar();
      if (opts["readwrite"])
        job.rw = opts["readwrite"].Scalar();
      if (opts["bs"])
        job.bs = opts["bs"].Scalar();
      if (opts["blocksize"])
        job.bs = opts["blocksize"].Scalar();
      if (opts["numjobs"])
        job.jobs = static_cast<int>(parse_integer(opts["numjobs"].Scalar()).value_or(1));
      if (opts["iodepth"])
        job.iodepth = static_cast<int>(parse_integer(opts["iodepth"].Scalar()).value_or(1));
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

FioReport parse_fio_text(std::string_view text) {
  FioReport report;
  std::map<std::string, std::pair<std::string, std::string>> options; // job name -> rw, bs
  std::map<std::string, int> depths;                                  // job name -> iodepth
  const auto lines = split_lines(text);
  FioJob* job = nullptr;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto raw = lines[i];
    const auto line = trim(raw);
    const int line_no = static_cast<int>(i + 1);
    if (line.empty())
      continue;
    if (starts_with(line, "fio-") && split_whitespace(line).size() == 1) {
      report.version = std::string(line);
      continue;
    }
    // "dpusim-seqread: (g=0): rw=read, bs=(R) 1024KiB-1024KiB, ..., ioengine=psync, iodepth=1"
    if (const auto g = line.find(": (g="); g != std::string_view::npos) {
      const std::string name(line.substr(0, g));
      const auto rw = field_value(line, "rw");
      std::string bs;
      if (const auto b = line.find("bs=(R) "); b != std::string_view::npos) {
        const auto v = line.substr(b + 7);
        bs = std::string(v.substr(0, v.find_first_of("-,")));
      }
      options[name] = {std::string(rw), bs};
      depths[name] = static_cast<int>(parse_integer(field_value(line, "iodepth")).value_or(1));
      continue;
    }
    // "dpusim-seqread: (groupid=0, jobs=1): err= 0: pid=12232: Tue Dec  1 13:20:36 2026"
    if (const auto g = line.find(": (groupid="); g != std::string_view::npos) {
      FioJob j;
      j.name = std::string(line.substr(0, g));
      if (const auto it = options.find(j.name); it != options.end()) {
        j.rw = it->second.first;
        j.bs = it->second.second;
        j.iodepth = depths[j.name];
      }
      if (const auto n = parse_integer(field_value(line, "jobs")))
        j.jobs = static_cast<int>(*n);
      if (const auto e = line.find("err="); e != std::string_view::npos) {
        const auto f = split_whitespace(line.substr(e + 4));
        if (!f.empty())
          j.error = static_cast<int>(parse_integer(f[0].substr(0, f[0].find(':'))).value_or(0));
      }
      report.jobs.push_back(std::move(j));
      job = &report.jobs.back();
      continue;
    }
    if (job == nullptr)
      continue;
    // "read: IOPS=1255, BW=1256MiB/s (1317MB/s)(2513MiB/2001msec)"
    if (starts_with(line, "read:") || starts_with(line, "write:")) {
      FioDirection& d = starts_with(line, "read:") ? job->read : job->write;
      const auto iops = fio_count(field_value(line, "IOPS"));
      const auto bw = fio_quantity(field_value(line, "BW"));
      if (!iops || !bw)
        throw ParseError("fio", line_no,
                         fmt::format("expected \"IOPS=<n>, BW=<rate>\", found \"{}\"", excerpt(line)));
      d.iops = *iops;
      d.bw_Bps = *bw;
      // "(2513MiB/2001msec)": bytes and runtime.
      if (const auto open = line.rfind('('); open != std::string_view::npos) {
        const auto inner = line.substr(open + 1, line.find(')', open) - open - 1);
        const auto slash = inner.find('/');
        if (slash != std::string_view::npos) {
          d.io_bytes = fio_quantity(inner.substr(0, slash)).value_or(0);
          auto rt = inner.substr(slash + 1);
          if (rt.ends_with("msec"))
            d.runtime_s = parse_number(rt.substr(0, rt.size() - 4)).value_or(0) * 1e-3;
          else if (rt.ends_with("usec"))
            d.runtime_s = parse_number(rt.substr(0, rt.size() - 4)).value_or(0) * 1e-6;
        }
      }
      continue;
    }
    // "cpu          : usr=0.15%, sys=8.50%, ctx=2516, majf=0, minf=267"
    if (starts_with(line, "cpu ") && line.find("usr=") != std::string_view::npos) {
      auto pct = [&](std::string_view key) {
        auto v = field_value(line, key);
        // Without its '%' the figure may be cut short ("sys=8" of "sys=8.50%").
        const bool percent = v.ends_with("%");
        if (percent)
          v.remove_suffix(1);
        const auto n = percent ? parse_number(v) : std::nullopt;
        if (!n)
          throw ParseError("fio", line_no,
                           fmt::format("{} is not a percentage in \"{}\"", key, excerpt(line)));
        return *n;
      };
      job->usr_cpu_percent = pct("usr");
      job->sys_cpu_percent = pct("sys");
    }
  }
  if (report.jobs.empty())
    throw ParseError("fio", 0, "no job result (a line \"<job>: (groupid=...): err=...\") was found");
  for (const auto& j : report.jobs)
    if (j.read.bw_Bps == 0 && j.write.bw_Bps == 0 && j.read.iops == 0 && j.write.iops == 0 && j.error == 0)
      throw ParseError("fio", 0,
                       fmt::format("job \"{}\" has no \"read:\" or \"write:\" result line: the output is "
                                   "incomplete",
                                   excerpt(j.name)));
  return report;
}

} // namespace dpusim::calib
