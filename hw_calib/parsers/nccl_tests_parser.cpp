#include "hw_calib/parsers/nccl_tests_parser.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/parsers/parse_error.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace dpusim::calib {
namespace {

constexpr std::string_view kTool = "nccl-tests";

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

bool is_word(std::string_view s) {
  return !s.empty() && !parse_number(s).has_value();
}

// The leading columns before the first "time": size count type [redop [root]].
struct Layout {
  std::size_t lead = 5;
  bool has_redop = true;
  bool has_root = true;
};

std::optional<Layout> layout_from_header(std::string_view body) {
  const auto f = split_whitespace(body);
  if (f.size() < 4 || f[0] != "size" || f[1] != "count")
    return std::nullopt;
  Layout l;
  const auto time = std::find(f.begin(), f.end(), "time");
  if (time == f.end())
    return std::nullopt;
  l.lead = static_cast<std::size_t>(time - f.begin());
  l.has_redop = std::find(f.begin(), time, "redop") != time;
  l.has_root = std::find(f.begin(), time, "root") != time;
  return l;
}

// Without a column header: a word in the fourth column is a reduction operator, and a whole number
// after it is a root (a time is printed with decimals); without the operator there is no root either.
std::optional<Layout> layout_from_row(const std::vector<std::string_view>& f) {
  if (f.size() < 4)
    return std::nullopt;
  Layout l;
  l.has_redop = is_word(f[3]);
  l.has_root = l.has_redop && f.size() > 4 && parse_integer(f[4]).has_value();
  l.lead = l.has_redop ? (l.has_root ? 5 : 4) : 3;
  return l;
}

void finish_inference(NcclTestsReport& r) {
  if (!r.collective.empty() || r.rows.empty())
    return;
  const auto& last = r.rows.back();
  if (last.redop.empty())
    return; // old layout: nothing tells the collective apart
  const bool rooted = last.root && *last.root >= 0;
  r.collective_inferred = true;
  if (last.redop == "none")
    r.collective = rooted ? "broadcast_perf, scatter_perf or gather_perf"
                          : "all_gather_perf, alltoall_perf or sendrecv_perf";
  else if (rooted)
    r.collective = "reduce_perf";
  else {
    // All-reduce's bus bandwidth is 2(n-1)/n of its algorithm bandwidth (at least 1 from two ranks),
    // reduce-scatter's (n-1)/n (below 1). The rows vote, weighted by their bandwidth (small sizes print
    // rounded figures), so that one odd row does not decide.
    double all_reduce = 0, reduce_scatter = 0;
    for (const auto& row : r.rows)
      (row.best_busbw_Bps() >= 0.99 * row.best_algbw_Bps() ? all_reduce : reduce_scatter) +=
          row.best_algbw_Bps();
    if (all_reduce + reduce_scatter > 0)
      r.collective = all_reduce >= reduce_scatter ? "all_reduce_perf" : "reduce_scatter_perf";
    else
      r.collective_inferred = false;
  }
}

} // namespace

double NcclTestsRow::best_busbw_Bps() const {
  return std::max(oop_busbw_Bps, ip_busbw_Bps.value_or(0.0));
}

double NcclTestsRow::best_algbw_Bps() const {
  return std::max(oop_algbw_Bps, ip_algbw_Bps.value_or(0.0));
}

double NcclTestsRow::best_time_s() const {
  return ip_time_s ? std::min(oop_time_s, *ip_time_s) : oop_time_s;
}

bool looks_like_nccl_tests(std::string_view text) {
  const auto lines = split_lines(text.substr(0, 1u << 20));
  for (const auto raw : lines) {
    const auto line = trim(strip_mpi_prefix(raw));
    if (starts_with(line, "# nccl-tests version") || starts_with(line, "# Collective test starting") ||
        starts_with(line, "# nThread ") || starts_with(line, "# Avg bus bandwidth") ||
        starts_with(line, "# Out of bounds values"))
      return true;
    if (!line.empty() && line.front() == '#') {
      const auto f = split_whitespace(trim(line.substr(1)));
      if (f.size() >= 6 && f[0] == "size" && f[1] == "count" &&
          std::find(f.begin(), f.end(), "algbw") != f.end())
        return true;
      continue;
    }
    // A result row without any of the lines around it: size, count, a data type of nccl-tests.
    const auto f = split_whitespace(line);
    static constexpr std::string_view kTypes[] = {"float", "double", "half",     "bfloat16",
                                                  "int8",  "uint8",  "int32",    "uint32",
                                                  "int64", "uint64", "fp8_e4m3", "fp8_e5m2"};
    if (f.size() >= 7 && f.size() <= 13 && parse_integer(f[0]) && parse_integer(f[1]) &&
        std::find(std::begin(kTypes), std::end(kTypes), f[2]) != std::end(kTypes))
      return true;
  }
  return false;
}

std::vector<NcclTestsReport> parse_nccl_tests_runs(std::string_view text) {
  std::vector<NcclTestsReport> runs;
  NcclTestsReport cur; // the table being read, and the header lines before it
  std::optional<Layout> layout;
  bool in_table = false;
  auto close_table = [&](int footer_line) {
    cur.footer_line = footer_line;
    finish_inference(cur);
    runs.push_back(std::move(cur));
    NcclTestsReport next;
    // The header of a log (version, devices) stands for every table after it.
    next.version = runs.back().version;
    next.ranks = runs.back().ranks;
    next.hosts = runs.back().hosts;
    next.gpus_per_thread = runs.back().gpus_per_thread;
    cur = std::move(next);
    in_table = false;
    layout.reset();
  };
  const auto lines = split_lines(text);
  bool ranks_fresh = false; // a new "Using devices" block replaces the ranks of the one before
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
          cur.version = std::string(f[2]);
      } else if (starts_with(body, "Collective test starting:")) {
        cur.collective = std::string(trim(body.substr(std::string_view("Collective test starting:").size())));
        cur.collective_inferred = false;
      } else if (starts_with(body, "nThread")) {
        const auto f = split_whitespace(body);
        for (std::size_t k = 0; k + 1 < f.size(); ++k)
          if (f[k] == "nGpus")
            if (const auto n = parse_integer(f[k + 1]))
              cur.gpus_per_thread = static_cast<int>(*n);
      } else if (starts_with(body, "Using devices")) {
        ranks_fresh = true;
      } else if (starts_with(body, "Rank")) {
        if (ranks_fresh) {
          cur.ranks = 0;
          cur.hosts.clear();
          ranks_fresh = false;
        }
        ++cur.ranks;
        const auto f = split_whitespace(body);
        for (std::size_t k = 0; k + 1 < f.size(); ++k)
          if (f[k] == "on") {
            cur.hosts.insert(std::string(f[k + 1]));
            break;
          }
      } else if (starts_with(body, "Out of bounds values")) {
        const auto colon = body.find(':');
        if (colon != std::string_view::npos) {
          const auto f = split_whitespace(body.substr(colon + 1));
          if (!f.empty())
            cur.out_of_bounds = parse_integer(f[0]);
        }
        if (in_table)
          close_table(line_no);
        else if (!runs.empty() && !runs.back().out_of_bounds)
          runs.back().out_of_bounds = cur.out_of_bounds;
      } else if (starts_with(body, "Avg bus bandwidth")) {
        std::optional<double> avg;
        const auto colon = body.find(':');
        if (colon != std::string_view::npos) {
          const auto f = split_whitespace(body.substr(colon + 1));
          if (!f.empty())
            if (const auto v = parse_number(f[0]))
              avg = *v * 1e9;
        }
        if (in_table) {
          cur.avg_busbw_Bps = avg;
          close_table(line_no);
        } else if (!runs.empty() && runs.back().footer_line > 0 && !runs.back().avg_busbw_Bps) {
          runs.back().avg_busbw_Bps = avg; // the line after "# Out of bounds values"
        }
      } else if (const auto l = layout_from_header(body)) {
        layout = l;
      }
      continue;
    }
    const auto f = split_whitespace(line);
    if (f.empty() || !parse_integer(f[0]))
      continue; // NCCL INFO/WARN lines and other chatter
    if (!layout)
      layout = layout_from_row(f);
    const std::size_t lead = layout ? layout->lead : 5;
    if (f.size() != lead + 4 && f.size() != lead + 8) {
      const bool last_line = i + 1 == lines.size() || (i + 2 == lines.size() && trim(lines[i + 1]).empty());
      throw ParseError(
          std::string(kTool), line_no,
          fmt::format("expected {} or {} columns (size count type{}{} time algbw busbw #wrong, then "
                      "in-place time algbw busbw #wrong), found {}{}: \"{}\"",
                      lead + 4, lead + 8, layout && layout->has_redop ? " redop" : "",
                      layout && layout->has_root ? " root" : "", f.size(),
                      last_line ? " (the log ends inside this line: it was cut short)" : "", excerpt(line)));
    }
    auto num = [&](std::size_t k, const char* what) {
      const auto v = parse_number(f[k]);
      if (!v)
        throw ParseError(std::string(kTool), line_no,
                         fmt::format("{} \"{}\" is not a number", what, excerpt(f[k])));
      return *v;
    };
    auto wrong = [&](std::size_t k) -> std::optional<long long> {
      if (f[k] == "N/A")
        return std::nullopt; // -c 0: not checked
      if (const auto v = parse_integer(f[k]))
        return v;
      // Older nccl-tests print the largest relative error ("error", e.g. 2e-07) instead of a count.
      if (parse_number(f[k]))
        return std::nullopt;
      throw ParseError(std::string(kTool), line_no,
                       fmt::format("#wrong \"{}\" is neither a count, an error nor N/A", excerpt(f[k])));
    };
    NcclTestsRow row;
    row.line = line_no;
    row.size_bytes = num(0, "size");
    row.count = num(1, "count");
    row.type = std::string(f[2]);
    if (layout && layout->has_redop)
      row.redop = std::string(f[3]);
    if (layout && layout->has_root)
      row.root = parse_integer(f[4]);
    row.oop_time_s = num(lead, "time") * 1e-6;
    row.oop_algbw_Bps = num(lead + 1, "algbw") * 1e9;
    row.oop_busbw_Bps = num(lead + 2, "busbw") * 1e9;
    row.oop_wrong = wrong(lead + 3);
    if (f.size() == lead + 8) {
      row.ip_time_s = num(lead + 4, "in-place time") * 1e-6;
      row.ip_algbw_Bps = num(lead + 5, "in-place algbw") * 1e9;
      row.ip_busbw_Bps = num(lead + 6, "in-place busbw") * 1e9;
      row.ip_wrong = wrong(lead + 7);
    }
    if (!in_table) {
      in_table = true;
      cur.first_line = line_no;
    }
    cur.rows.push_back(std::move(row));
  }
  if (in_table)
    throw ParseError(
        std::string(kTool), static_cast<int>(lines.size()),
        fmt::format("the table that starts at line {} has no closing \"# Out of bounds values\" / "
                    "\"# Avg bus bandwidth\" lines: the log is incomplete (cut short, or the run "
                    "was stopped) after the {} B row of line {}",
                    cur.first_line, cur.rows.back().size_bytes, cur.rows.back().line));
  if (runs.empty())
    throw ParseError(std::string(kTool), 0, "no result rows (lines starting with a message size) were found");
  return runs;
}

NcclTestsReport parse_nccl_tests(std::string_view text) {
  auto runs = parse_nccl_tests_runs(text);
  if (runs.size() == 1)
    return std::move(runs.front());
  std::vector<NcclTestsReport> all_reduce;
  for (auto& r : runs)
    if (r.collective == "all_reduce_perf")
      all_reduce.push_back(std::move(r));
  if (all_reduce.size() != 1)
    throw ParseError(std::string(kTool), 0,
                     fmt::format("{} tables, {} of them all_reduce_perf: give a log of one all-reduce run",
                                 runs.size(), all_reduce.size()));
  return std::move(all_reduce.front());
}

} // namespace dpusim::calib
