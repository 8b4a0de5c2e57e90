#include "hw_calib/probes/nccl_probe.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/process_runner.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/fit/alpha_beta_fit.hpp"
#include "hw_calib/parsers/nccl_tests_parser.hpp"
#include "hw_calib/probes/param_builder.hpp"

#include <fmt/format.h>

namespace dpusim::calib {

ProbeResult run_nccl_probe(const ProbeContext& ctx) {
  const auto& s = ctx.settings();
  ProbeResult result;
  std::string text, origin;
  if (s.nccl_output) {
    text = read_bounded_text(*s.nccl_output);
    origin = fmt::format("recorded nccl-tests output {}", s.nccl_output->filename().string());
  } else {
    if (!find_executable("all_reduce_perf"))
      return skipped(
          "nccl-tests' all_reduce_perf not found in PATH; build nccl-tests or give --nccl-output FILE "
          "with a recorded run");
    const int gpus = s.nccl_gpus > 0 ? s.nccl_gpus : static_cast<int>(ctx.machine().gpus.size());
    if (gpus == 0)
      return skipped(
          "no GPU found for all_reduce_perf (nvidia-smi lists none); give --nccl-gpus or --nccl-output");
    std::vector<std::string> argv{
        "all_reduce_perf",   "-b", "8", "-e", s.duration_s < 5 ? "64M" : "1G", "-f", "2", "-g",
        std::to_string(gpus)};
    ProcessOptions po;
    po.timeout = std::chrono::seconds(static_cast<long long>(std::max(10.0, ctx.time_left_s())));
    const ProcessResult r = run_process(argv, po);
    ctx.check();
    if (!r.ok())
      throw std::runtime_error(fmt::format("all_reduce_perf {}: {}", r.describe(), std::string(trim(r.err))));
    text = r.out;
    origin = fmt::format("all_reduce_perf -b 8 -e {} -f 2 -g {} on this node", argv[4], gpus);
  }
  const NcclTestsReport report = parse_nccl_tests(text);
  result.tools["nccl-tests"] = report.version.empty() ? "unknown (not printed)" : report.version;
  std::vector<double> sizes, times;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const auto& row = report.rows[i];
    const auto idx = static_cast<long long>(i);
    result.samples.add("all_reduce", idx, row.size_bytes, "time_s", row.best_time_s());
    result.samples.add("all_reduce", idx, row.size_bytes, "busbw_bytes_per_s", row.best_busbw_Bps());
    result.samples.add("all_reduce", idx, row.size_bytes, "algbw_bytes_per_s",
                       std::max(row.oop_algbw_Bps, row.ip_algbw_Bps.value_or(0.0)));
    if (row.best_time_s() > 0) {
      sizes.push_back(row.size_bytes);
      times.push_back(row.best_time_s());
    }
  }
  const auto& last = report.rows.back();
  const double busbw = last.best_busbw_Bps();
  result.summary.push_back(
      fmt::format("all-reduce over {} ranks: bus bandwidth {:.1f} GB/s at {:.0f} MiB ({})", report.ranks,
                  busbw / 1e9, last.size_bytes / 1048576.0, origin));
  add_param(result, "nccl",
            ParamSpec{"collective.allreduce_bus_bandwidth", busbw, calibration::Provenance::measured,
                      fmt::format("nccl-tests busbw at the largest size, {} ranks; {}", report.ranks, origin),
                      "all_reduce", std::nullopt, ""});
  try {
    const AlphaBetaFit ab = fit_alpha_beta(sizes, times);
    result.summary.push_back(
        fmt::format("all-reduce time: {:.1f} us + bytes at {:.1f} GB/s algorithm bandwidth "
                    "(R2 {:.3f}); half efficiency at {:.1f} MiB",
                    ab.alpha_s * 1e6, ab.beta_Bps / 1e9, ab.r2, ab.n_half_bytes() / 1048576.0));
    if (ab.alpha_s > 0)
      add_param(result, "nccl",
                ParamSpec{"collective.allreduce_latency", ab.alpha_s, calibration::Provenance::fitted,
                          fmt::format("alpha of an alpha-beta fit of all-reduce time over sizes; {}", origin),
                          "all_reduce", fit_quality(ab), ""});
    else
      result.notes.push_back(fmt::format(
          "collective.allreduce_latency not recorded: the fit's intercept is {:.3g} us, not a latency",
          ab.alpha_s * 1e6));
  } catch (const std::invalid_argument& e) {
    result.notes.push_back(fmt::format("all-reduce alpha-beta fit not possible: {}", e.what()));
  }
  if (s.nccl_link_rate_Bps) {
    const double eff = busbw / *s.nccl_link_rate_Bps;
    const std::string key =
        s.nccl_scope == "nvlink" ? "collective.nvlink_efficiency" : "collective.network_efficiency";
    if (eff > 1.0)
      result.notes.push_back(
          fmt::format("bus bandwidth {:.1f} GB/s exceeds the given link rate {:.1f} GB/s (NCCL may "
                      "have used tree/NVLS across nodes); {} not recorded — calibrate on a ring run",
                      busbw / 1e9, *s.nccl_link_rate_Bps / 1e9, key));
    else
      add_param(result, "nccl",
                ParamSpec{key, eff, calibration::Provenance::measured,
                          fmt::format("busbw {:.2f} GB/s over the given link rate {:.2f} GB/s; {}",
                                      busbw / 1e9, *s.nccl_link_rate_Bps / 1e9, origin),
                          "all_reduce", std::nullopt, ""});
  }
  return result;
}

} // namespace dpusim::calib
