#include "hw_calib/parsers/iperf3_parser.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/json_text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <fmt/format.h>
#include <set>
#include <yaml-cpp/yaml.h>

namespace dpusim::calib {
namespace {

constexpr const char* kTool = "iperf3";

// "14.0 Gbits/sec" -> bits per second.
std::optional<double> bitrate(std::string_view value, std::string_view unit) {
  const auto v = parse_number(value);
  if (!v)
    return std::nullopt;
  if (unit == "bits/sec")
    return *v;
  if (unit == "Kbits/sec")
    return *v * 1e3;
  if (unit == "Mbits/sec")
    return *v * 1e6;
  if (unit == "Gbits/sec")
    return *v * 1e9;
  if (unit == "Tbits/sec")
    return *v * 1e12;
  return std::nullopt;
}

// "[  5]   0.00-2.00   sec  3.26 GBytes  14.0 Gbits/sec    1             sender": the fields after
// "]", i.e. interval, "sec", amount, unit, rate, rate unit, [retransmits], [sender|receiver].
struct ReportLine {
  double seconds = 0;
  double bps = 0;
  std::string role; // "sender", "receiver" or empty (an interval line)
  std::string id;   // the stream's socket number, or "SUM"
  bool sum = false;
};

std::optional<ReportLine> report_line(std::string_view line) {
  if (!starts_with(line, "["))
    return std::nullopt;
  const auto close = line.find(']');
  if (close == std::string_view::npos)
    return std::nullopt;
  const auto id = trim(line.substr(1, close - 1));
  ReportLine r;
  r.sum = id == "SUM";
  r.id = std::string(id);
  if (!r.sum && !parse_integer(id))
    return std::nullopt;
  const auto f = split_whitespace(line.substr(close + 1));
  if (f.size() < 6 || f[1] != "sec")
    return std::nullopt;
  const auto dash = f[0].find('-');
  if (dash == std::string_view::npos)
    return std::nullopt;
  const auto from = parse_number(f[0].substr(0, dash));
  const auto to = parse_number(f[0].substr(dash + 1));
  const auto bps = bitrate(f[4], f[5]);
  if (!from || !to || !bps)
    return std::nullopt;
  r.seconds = *to - *from;
  r.bps = *bps;
  if (f.back() == "sender" || f.back() == "receiver")
    r.role = std::string(f.back());
  return r;
}

// "CPU Utilization: local/sender 24.6% (0.0%u/24.6%s), remote/receiver 16.5% (0.5%u/16.0%s)"
void cpu_line(std::string_view line, Iperf3Test& t) {
  for (const auto* side : {"local/", "remote/"}) {
    const auto pos = line.find(side);
    if (pos == std::string_view::npos)
      continue;
    const auto f = split_whitespace(line.substr(pos));
    if (f.size() < 2 || !f[1].ends_with("%"))
      continue;
    const auto v = parse_number(f[1].substr(0, f[1].size() - 1));
    if (std::string_view(side) == "local/")
      t.local_cpu_percent = v;
    else
      t.remote_cpu_percent = v;
  }
}

Iperf3Report parse_text(std::string_view text) {
  Iperf3Report report;
  const auto lines = split_lines(text);
  bool server = false, reverse = false, in_test = false, in_summary = false, done = false;
  std::set<std::string> streams;
  bool have_sum = false;
  Iperf3Test cur;
  std::vector<double> intervals, sum_intervals;
  auto finish = [&] {
    if (!in_test)
      return;
    cur.interval_bps = sum_intervals.empty() ? intervals : sum_intervals;
    // A server prints the summary line of its own side only: "sender" when the client ran with -R.
    if (cur.server)
      cur.reverse = cur.sender_bps.has_value() && !cur.receiver_bps.has_value();
    cur.streams = std::max<int>(1, static_cast<int>(streams.size()));
    if (cur.sender_bps || cur.receiver_bps)
      report.tests.push_back(cur);
    else
      ++report.incomplete_tests;
    cur = Iperf3Test{};
    intervals.clear();
    sum_intervals.clear();
    in_test = in_summary = have_sum = false;
    streams.clear();
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto line = trim(lines[i]);
    const int line_no = static_cast<int>(i + 1);
    if (line.empty())
      continue;
    if (starts_with(line, "iperf 3")) {
      report.version =
          std::string(split_whitespace(line).size() >= 2 ? line.substr(0, line.find(' ', 6)) : line);
    } else if (starts_with(line, "Server listening on")) {
      finish();
      server = true;
    } else if (starts_with(line, "Accepted connection from") || starts_with(line, "Connecting to host")) {
      finish();
      in_test = true;
      cur.server = server;
      cur.reverse = reverse;
    } else if (starts_with(line, "Reverse mode")) {
      reverse = cur.reverse = true;
    } else if (line.find("Bytes") == std::string_view::npos &&
               line.find("Jitter") != std::string_view::npos) {
      throw ParseError(kTool, line_no,
                       "a UDP test (jitter and loss columns): only TCP tests calibrate anything");
    } else if (starts_with(line, "- - -")) {
      in_summary = true;
    } else if (starts_with(line, "CPU Utilization:")) {
      cpu_line(line, cur);
    } else if (starts_with(line, "iperf Done.")) {
      done = true;
      finish();
    } else if (starts_with(line, "iperf3: interrupt")) {
      report.interrupted = true;
      finish();
    } else if (starts_with(line, "iperf3: error")) {
      throw ParseError(kTool, line_no, fmt::format("iperf3 reported an error: \"{}\"", excerpt(line)));
    } else if (const auto r = report_line(line)) {
      if (!in_test)
        continue;
      if (!in_summary) {
        (r->sum ? sum_intervals : intervals).push_back(r->bps);
        continue;
      }
      if (r->role.empty())
        continue;
      // With several streams the [SUM] lines are the test's; without, the stream's own.
      if (r->sum || !have_sum) {
        if (r->role == "sender")
          cur.sender_bps = r->bps;
        else
          cur.receiver_bps = r->bps;
        cur.seconds = r->seconds;
        if (!cur.line)
          cur.line = line_no;
      }
      if (r->sum)
        have_sum = true;
      else
        streams.insert(r->id);
    }
  }
  if (in_test && !done) {
    const bool had_summary = cur.sender_bps || cur.receiver_bps;
    if (!server && !had_summary)
      throw ParseError(kTool, static_cast<int>(lines.size()),
                       "the client's log ends before its summary (\"sender\"/\"receiver\" lines, then "
                       "\"iperf Done.\"): it was cut short");
    finish();
  }
  if (report.tests.empty())
    throw ParseError(kTool, 0,
                     report.incomplete_tests > 0
                         ? "no test in this log has its summary lines (every one was interrupted)"
                         : "no test summary (lines ending in \"sender\" or \"receiver\") was found");
  return report;
}

std::optional<double> number_at(const YAML::Node& n, const char* key) {
  if (!n || !n.IsMap() || !n[key] || !n[key].IsScalar())
    return std::nullopt;
  return parse_number(n[key].Scalar());
}

Iperf3Report parse_json(std::string_view text) {
  const YAML::Node root = parse_json_text(text, kTool);
  Iperf3Report report;
  report.json = true;
  if (root["error"] && root["error"].IsScalar())
    throw ParseError(kTool, 0,
                     fmt::format("iperf3 reported an error: \"{}\"", excerpt(root["error"].Scalar())));
  const YAML::Node start = root["start"];
  const YAML::Node end = root["end"];
  if (!start || !start.IsMap())
    throw ParseError(kTool, 0, "the JSON object has no \"start\" section: not iperf3 -J output");
  if (!end || !end.IsMap() || end.size() == 0)
    throw ParseError(kTool, 0, "the JSON object has no \"end\" section: the test did not finish");
  if (start["version"])
    report.version = start["version"].Scalar();
  Iperf3Test t;
  t.server = static_cast<bool>(start["accepted_connection"]);
  const YAML::Node ts = start["test_start"];
  if (ts && ts.IsMap()) {
    if (ts["protocol"] && ts["protocol"].Scalar() != "TCP")
      throw ParseError(
          kTool, 0,
          fmt::format("a {} test: only TCP tests calibrate anything", excerpt(ts["protocol"].Scalar())));
    t.reverse = number_at(ts, "reverse").value_or(0) != 0;
    t.streams = static_cast<int>(number_at(ts, "num_streams").value_or(1));
  }
  const YAML::Node sent = end["sum_sent"];
  const YAML::Node received = end["sum_received"];
  if (!sent && !received)
    throw ParseError(kTool, 0, "the \"end\" section has no \"sum_sent\" or \"sum_received\"");
  // The side that did not send reports sum_sent with zero bytes.
  if (const auto b = number_at(sent, "bits_per_second"); b && number_at(sent, "bytes").value_or(0) > 0)
    t.sender_bps = b;
  if (const auto b = number_at(received, "bits_per_second"))
    t.receiver_bps = b;
  t.seconds = number_at(received, "seconds");
  const YAML::Node cpu = end["cpu_utilization_percent"];
  t.local_cpu_percent = number_at(cpu, "host_total");
  t.remote_cpu_percent = number_at(cpu, "remote_total");
  const YAML::Node intervals = root["intervals"];
  if (intervals && intervals.IsSequence())
    for (const auto& iv : intervals)
      if (const auto b = number_at(iv["sum"], "bits_per_second"))
        t.interval_bps.push_back(*b);
  report.tests.push_back(std::move(t));
  return report;
}

} // namespace

Iperf3Report parse_iperf3(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{')
    return parse_json(text);
  return parse_text(text);
}

} // namespace dpusim::calib
