#include "hw_calib/probes/nccl_probe.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/process_runner.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/ingest/ingest.hpp"

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
  // The same checks and fits as `ingest`: a single-GPU run, a network efficiency from ranks that all
  // ran on one host, a table cut short or a latency without small messages never reach the profile.
  IngestOptions io;
  io.role = ctx.role();
  io.nccl_link_rate_Bps = s.nccl_link_rate_Bps;
  io.nccl_scope = s.nccl_scope;
  IngestedFile f;
  try {
    f = ingest_text(s.nccl_output ? s.nccl_output->string() : origin, text, io);
  } catch (const InputFileError& e) {
    throw std::runtime_error(e.what()); // names the file, or the command for a live run
  }
  if (f.format != InputFormat::nccl_tests)
    throw std::runtime_error(
        fmt::format("{}: this is {} output, not nccl-tests'", origin, format_name(f.format)));
  result.params = std::move(f.result.params);
  result.samples = std::move(f.result.samples);
  result.tools = std::move(f.result.tools);
  result.summary = std::move(f.result.summary);
  result.summary.push_back(origin);
  result.notes = std::move(f.warnings);
  return result;
}

} // namespace dpusim::calib
