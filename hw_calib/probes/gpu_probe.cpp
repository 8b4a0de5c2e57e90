#include "hw_calib/probes/gpu_probe.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/process_runner.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/fit/alpha_beta_fit.hpp"
#include "hw_calib/measurement/param_builder.hpp"
#include "hw_calib/parsers/gpu_probe_parser.hpp"

#include <fmt/format.h>

namespace dpusim::calib {
namespace {

std::optional<std::string> find_helper(const ProbeSettings& s) {
  if (!s.helper_dir.empty())
    if (auto p = find_executable((s.helper_dir / "dpusim-calib-gpu").string()))
      return p;
  return find_executable("dpusim-calib-gpu");
}

} // namespace

ProbeResult run_gpu_probe(const ProbeContext& ctx) {
  const auto& s = ctx.settings();
  ProbeResult result;
  std::string text, origin;
  if (s.gpu_csv) {
    text = read_bounded_text(*s.gpu_csv);
    origin = fmt::format("recorded dpusim-calib-gpu output {}", s.gpu_csv->filename().string());
  } else {
    if (ctx.machine().gpus.empty())
      return skipped("no NVIDIA GPU found (nvidia-smi absent or lists none)");
    const auto helper = find_helper(s);
    if (!helper)
      return skipped(
          "dpusim-calib-gpu was not built (the CUDA toolkit was not found at configure time); build "
          "dpusim-calib on a machine with the CUDA toolkit, or give --gpu-csv FILE");
    ProcessOptions po;
    po.timeout = std::chrono::seconds(static_cast<long long>(std::max(10.0, ctx.time_left_s())));
    const ProcessResult r =
        run_process({*helper, "--seconds", fmt::format("{:.1f}", std::max(1.0, s.duration_s))}, po);
    ctx.check();
    if (!r.ok())
      throw std::runtime_error(
          fmt::format("dpusim-calib-gpu {}: {}", r.describe(), std::string(trim(r.err))));
    text = r.out;
    origin = "dpusim-calib-gpu on this node";
  }
  const GpuProbeReport report = parse_gpu_probe_csv(text);
  result.tools["cuda-runtime"] = report.cuda_runtime;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const auto& row = report.rows[i];
    result.samples.add(row.test, static_cast<long long>(i), row.size, "seconds", row.seconds);
    result.samples.add(row.test, static_cast<long long>(i), row.size, "rate_per_s", row.rate);
  }
  const std::string device = fmt::format("{} (sm {})", report.device_name, report.compute_capability);
  for (const std::string test : {"h2d_pinned", "d2h_pinned"}) {
    const auto rows = report.rows_of(test);
    if (rows.empty())
      continue;
    std::vector<double> sizes, times;
    double best = 0;
    for (const auto& r : rows) {
      sizes.push_back(r.size);
      times.push_back(r.seconds);
      best = std::max(best, r.rate);
    }
    std::optional<calibration::FitQuality> fit;
    try {
      const AlphaBetaFit ab = fit_alpha_beta(sizes, times);
      fit = fit_quality(ab);
      result.summary.push_back(
          fmt::format("{}: {:.1f} GB/s best; {:.1f} us + bytes at {:.1f} GB/s (R2 {:.3f})", test, best / 1e9,
                      ab.alpha_s * 1e6, ab.beta_Bps / 1e9, ab.r2));
    } catch (const std::invalid_argument&) {
      result.summary.push_back(fmt::format("{}: {:.1f} GB/s best", test, best / 1e9));
    }
    add_param(result, "gpu",
              ParamSpec{test == "h2d_pinned" ? "gpu.h2d_bandwidth" : "gpu.d2h_bandwidth", best,
                        calibration::Provenance::measured,
                        fmt::format("cudaMemcpy {} pinned, best over sizes, {}; {}", test.substr(0, 3),
                                    device, origin),
                        test, fit, ""});
  }
  const auto gemm = report.rows_of("gemm_bf16");
  if (!gemm.empty()) {
    const GpuProbeRow* best = &gemm.front();
    for (const auto& r : gemm) {
      result.summary.push_back(fmt::format("bf16 GEMM {}^3: {:.1f} TFLOP/s", r.size, r.rate / 1e12));
      if (r.rate > best->rate)
        best = &r;
    }
    add_param(result, "gpu",
              ParamSpec{"gpu.gemm_peak_achieved", best->rate, calibration::Provenance::measured,
                        fmt::format("cuBLAS bf16 GEMM (fp32 accumulate), best at m=n=k={}, {}; {}",
                                    best->size, device, origin),
                        "gemm_bf16", std::nullopt, ""});
  }
  return result;
}

} // namespace dpusim::calib
