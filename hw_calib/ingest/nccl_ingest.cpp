#include "hw_calib/common/text.hpp"
#include "hw_calib/fit/alpha_beta_fit.hpp"
#include "hw_calib/ingest/format_readers.hpp"
#include "hw_calib/parsers/nccl_tests_parser.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace dpusim::calib {

namespace {

// A log of mpirun --tag-output: each process prints its own "# nThread" line, so nGpus 1 there is
// one GPU per process, not a single-GPU run.
bool contains_mpi_prefix(std::string_view text) {
  return text.find("]<stdout>:") != std::string_view::npos;
}

// --- nccl-tests -------------------------------------------------------------------------------------

/// The ranks and hosts the all-reduce ran on (its "#  Rank ... on HOST" lines): the shape the simulator
/// needs to turn the measured latency into a step latency. A log without those lines gives none.
void add_allreduce_shape(IngestedFile& f, const Origin& o, const NcclTestsReport& r) {
  if (r.hosts.empty() || r.ranks < 1) {
    f.warnings.push_back(
        "collective.allreduce_ranks and .allreduce_nodes left out: the log does not list its "
        "ranks (\"#  Rank ... on HOST\"), so the simulator cannot apply "
        "collective.allreduce_latency (it needs the shape it was measured on)");
    return;
  }
  const auto nodes = static_cast<int>(r.hosts.size());
  const std::string what =
      fmt::format("nccl-tests all_reduce_perf: {} \"#  Rank\" line(s) on {} host(s)", r.ranks, nodes);
  add_param_of_file(f, "nccl",
                    ParamSpec{"collective.allreduce_ranks", static_cast<double>(r.ranks),
                              calibration::Provenance::measured, o.cite(what, r.first_line), "", std::nullopt,
                              ""});
  add_param_of_file(f, "nccl",
                    ParamSpec{"collective.allreduce_nodes", static_cast<double>(nodes),
                              calibration::Provenance::measured, o.cite(what, r.first_line), "", std::nullopt,
                              ""});
}

std::string series_of(const NcclTestsReport& r, std::size_t index) {
  std::string name = r.collective;
  if (name.empty() || r.collective_inferred)
    name = r.collective == "all_reduce_perf" || r.collective == "reduce_scatter_perf" ||
                   r.collective == "reduce_perf"
               ? r.collective
               : fmt::format("table{}", index + 1);
  if (name.ends_with("_perf"))
    name.resize(name.size() - 5);
  return name;
}

void check_nccl_table(const Origin& o, const NcclTestsReport& r) {
  if (r.out_of_bounds && *r.out_of_bounds > 0)
    o.fail(r.footer_line,
           fmt::format("nccl-tests counted {} wrong results (\"# Out of bounds values\"): the run's "
                       "data were corrupted and its timings are not a measurement",
                       *r.out_of_bounds));
  for (const auto& row : r.rows) {
    if ((row.oop_wrong && *row.oop_wrong > 0) || (row.ip_wrong && *row.ip_wrong > 0))
      o.fail(row.line, fmt::format("{} B: nccl-tests counted wrong results (#wrong {}): the run is not valid",
                                   row.size_bytes, row.oop_wrong.value_or(0) + row.ip_wrong.value_or(0)));
    if (!(row.oop_time_s > 0) || (row.ip_time_s && !(*row.ip_time_s > 0)))
      o.fail(row.line,
             fmt::format("{} B: a time of 0 or below; expected a positive time in us", row.size_bytes));
    if (row.oop_algbw_Bps < 0 || row.oop_busbw_Bps < 0 || row.ip_algbw_Bps.value_or(0) < 0 ||
        row.ip_busbw_Bps.value_or(0) < 0)
      o.fail(row.line, fmt::format("{} B: a negative bandwidth; expected GB/s of 0 or more", row.size_bytes));
    if (row.size_bytes < 0)
      o.fail(row.line, "a negative message size");
  }
}

// One table may hold several sweeps over the sizes (-d all, -o all: one per data type and operation),
// each named by its type and operation; the sizes go up within each.
struct Sweep {
  std::string type, redop;
  std::vector<NcclTestsRow> rows;
};

std::vector<Sweep> sweeps_of(const Origin& o, const NcclTestsReport& r) {
  std::vector<Sweep> out;
  for (const auto& row : r.rows) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const Sweep& s) { return s.type == row.type && s.redop == row.redop; });
    if (it == out.end()) {
      out.push_back(Sweep{row.type, row.redop, {}});
      it = std::prev(out.end());
    } else if (row.size_bytes <= it->rows.back().size_bytes) {
      o.fail(row.line,
             fmt::format("the message size goes down or repeats ({} B after {} B, {} {}): not one sweep "
                         "over the sizes",
                         row.size_bytes, it->rows.back().size_bytes, row.type, row.redop));
    }
    it->rows.push_back(row);
  }
  return out;
}

} // namespace

void ingest_nccl(IngestedFile& f, const Origin& o, std::string_view text, const IngestOptions& opt) {
  const auto runs = parse_nccl_tests_runs(text);
  const NcclTestsReport* all_reduce = nullptr;
  NcclTestsReport all_reduce_sweep; // the all-reduce table, with the rows of the sweep that is used
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    check_nccl_table(o, r);
    if (r.ranks == 1 || (r.ranks == 0 && r.gpus_per_thread == 1 && !contains_mpi_prefix(text)))
      o.fail(r.first_line, "a single-GPU run (one rank): no GPU exchanged data with another, so there is no "
                           "collective to calibrate; run across GPUs (-g N) or nodes (mpirun)");
    const auto sweeps = sweeps_of(o, r);
    for (const auto& sweep : sweeps) {
      std::string series = series_of(r, i);
      if (sweeps.size() > 1)
        series += fmt::format("_{}_{}", sweep.type, sweep.redop.empty() ? "none" : sweep.redop);
      for (std::size_t k = 0; k < sweep.rows.size(); ++k) {
        const auto& row = sweep.rows[k];
        const auto idx = static_cast<long long>(k);
        f.result.samples.add(series, idx, row.size_bytes, "time_s", row.best_time_s());
        f.result.samples.add(series, idx, row.size_bytes, "busbw_bytes_per_s", row.best_busbw_Bps());
        f.result.samples.add(series, idx, row.size_bytes, "algbw_bytes_per_s", row.best_algbw_Bps());
      }
    }
    if (r.collective == "all_reduce_perf") {
      if (all_reduce != nullptr)
        o.fail(r.first_line,
               fmt::format("a second all-reduce table (the first starts at line {}): give one run per "
                           "file, so that the profile says which one it took",
                           all_reduce->first_line));
      all_reduce = &r;
      // The parameters come from one sweep: float sum, what the simulator's collectives move, when the
      // run has it, else the first.
      const auto chosen = std::find_if(sweeps.begin(), sweeps.end(),
                                       [](const Sweep& s) { return s.type == "float" && s.redop == "sum"; });
      const Sweep& sweep = chosen != sweeps.end() ? *chosen : sweeps.front();
      all_reduce_sweep = r;
      all_reduce_sweep.rows = sweep.rows;
      if (sweeps.size() > 1)
        f.warnings.push_back(
            fmt::format("the all-reduce table holds {} sweeps (data types and operations): the "
                        "{} {} one gives the parameters",
                        sweeps.size(), sweep.type, sweep.redop));
    } else {
      f.result.summary.push_back(
          fmt::format("{} ({} sizes, lines {}-{}): raw samples only; the collective "
                      "parameters come from all-reduce",
                      r.collective.empty() ? "a table of an unnamed collective" : r.collective, r.rows.size(),
                      r.first_line, r.rows.back().line));
    }
  }
  f.result.tools["nccl-tests"] =
      runs.front().version.empty() ? "unknown (not printed)" : runs.front().version;
  if (all_reduce == nullptr) {
    f.warnings.push_back("no all-reduce table (all_reduce_perf): no collective parameter from this file");
    return;
  }
  const auto& r = all_reduce_sweep;
  const auto& last = r.rows.back();
  if (!(last.best_busbw_Bps() > 0))
    o.fail(last.line,
           fmt::format("the bus bandwidth at the largest size ({} B) is {}: expected a positive GB/s",
                       last.size_bytes, last.best_busbw_Bps() / 1e9));
  const std::string hosts = r.hosts.empty()
                                ? std::string("hosts not printed")
                                : fmt::format("{} rank(s) on {} host(s)", r.ranks, r.hosts.size());
  const std::string what = fmt::format("nccl-tests all_reduce_perf ({})", hosts);
  f.result.summary.push_back(fmt::format("all-reduce: bus bandwidth {:.1f} GB/s at {:.0f} MiB, {}",
                                         last.best_busbw_Bps() / 1e9, last.size_bytes / 1048576.0, hosts));
  add_param_of_file(
      f, "nccl",
      ParamSpec{"collective.allreduce_bus_bandwidth", last.best_busbw_Bps(),
                calibration::Provenance::measured,
                o.cite(fmt::format("{}: busbw at the largest size, {} B", what, last.size_bytes), last.line),
                "all_reduce", std::nullopt, ""});
  std::vector<double> sizes, times;
  std::size_t small = 0;
  for (const auto& row : r.rows) {
    sizes.push_back(row.size_bytes);
    times.push_back(row.best_time_s());
    if (row.size_bytes <= kNcclSmallMessageBytes)
      ++small;
  }
  if (small < 2) {
    f.warnings.push_back(fmt::format("collective.allreduce_latency left out: the sweep has {} size(s) of {} "
                                     "KiB or less (from {} B); a latency "
                                     "needs small messages (run with -b 8)",
                                     small, kNcclSmallMessageBytes / 1024, r.rows.front().size_bytes));
  } else {
    try {
      const AlphaBetaFit ab = fit_alpha_beta(sizes, times);
      if (ab.alpha_s > 0) {
        add_param_of_file(f, "nccl",
                          ParamSpec{"collective.allreduce_latency", ab.alpha_s,
                                    calibration::Provenance::fitted,
                                    o.cite(what + ": alpha of an alpha-beta fit of the time over sizes",
                                           r.first_line, last.line),
                                    "all_reduce", fit_quality(ab), ""});
        add_allreduce_shape(f, o, r);
      } else
        f.warnings.push_back(
            fmt::format("collective.allreduce_latency left out: the fit's intercept is {:.3g} us, "
                        "not a latency",
                        ab.alpha_s * 1e6));
    } catch (const std::invalid_argument& e) {
      f.warnings.push_back(fmt::format("collective.allreduce_latency left out: {}", e.what()));
    }
  }
  if (opt.nccl_link_rate_Bps) {
    const std::string key =
        opt.nccl_scope == "nvlink" ? "collective.nvlink_efficiency" : "collective.network_efficiency";
    if (opt.nccl_scope == "network" && r.hosts.size() == 1)
      o.fail(
          r.first_line,
          fmt::format("--nccl-scope network, but all {} ranks ran on {}: this run crossed no network; give a "
                      "multi-node run, or --nccl-scope nvlink",
                      r.ranks, *r.hosts.begin()));
    if (opt.nccl_scope == "nvlink" && r.hosts.size() > 1)
      o.fail(r.first_line,
             fmt::format("--nccl-scope nvlink, but the ranks ran on {} hosts: the network set the "
                         "pace, not NVLink",
                         r.hosts.size()));
    if (r.hosts.empty())
      f.warnings.push_back(
          "the log does not list its ranks (\"#  Rank ... on HOST\"): that it spans the scope "
          "asked for could not be checked");
    const double eff = last.best_busbw_Bps() / *opt.nccl_link_rate_Bps;
    if (eff > 1.0)
      f.warnings.push_back(
          fmt::format("{} left out: bus bandwidth {:.1f} GB/s exceeds the link rate {:.1f} GB/s "
                      "(tree or NVLS?); calibrate on a ring run (NCCL_ALGO=Ring)",
                      key, last.best_busbw_Bps() / 1e9, *opt.nccl_link_rate_Bps / 1e9));
    else
      add_param_of_file(
          f, "nccl",
          ParamSpec{key, eff, calibration::Provenance::measured,
                    o.cite(fmt::format("{}: busbw {:.2f} GB/s over the given link rate {:.2f} GB/s", what,
                                       last.best_busbw_Bps() / 1e9, *opt.nccl_link_rate_Bps / 1e9),
                           last.line),
                    "all_reduce", std::nullopt, ""});
  }
}

} // namespace dpusim::calib
