#include "sim/scenario/rank_memory.hpp"

#include "models/catalog/gpu_spec.hpp"
#include "models/workload/layer_kinds.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace dpusim::scenario {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

workload::MemoryBreakdown peak_rank_memory(const WorkloadConfig& w, int* stage_out, InFlight in_flight) {
  const auto& p = w.parallelism;
  workload::MemoryBreakdown worst;
  for (int s = 0; s < p.pp; ++s) {
    workload::MemoryConfig c;
    c.micro_batch = w.micro_batch;
    c.seq_len = w.seq_len;
    c.tp = p.tp;
    c.pp = p.pp;
    c.dp = p.dp;
    c.ep = p.ep;
    c.cp = p.cp;
    c.sequence_parallel = w.sequence_parallel;
    c.recompute = w.recompute;
    c.attention = w.attention;
    c.precision = w.precision;
    c.low_precision_params = w.fp8_param_gather;
    c.zero_stage = w.zero_stage;
    c.layers_on_rank = 0;
    for (int chunk = 0; chunk < w.virtual_stages; ++chunk)
      for (const int kind : workload::chunk_layer_kinds(
               w.model, p, w.virtual_stages, workload::virtual_stage_of(p, w.virtual_stages, s, chunk))) {
        ++c.layers_by_kind.at(kind);
        ++c.layers_on_rank;
      }
    // In a V (DualPipeV) the first stage holds both ends of the model.
    c.holds_embedding =
        s == 0 ||
        (!p.v_shape && ((s == p.pp - 1 && !w.model.tied_embeddings) || (s == p.pp - 1 && p.pp > 1)));
    // 1F1B keeps up to (pp - stage) micro-batches of activations alive; Megatron's interleaving keeps
    // more of them, each on a 1/v share of the stage's layers (its warm-up of 2(pp-s-1) + (v-1)pp chunks).
    // The expert-parallel overlap's combined 1F1B warms up with one more forward (pipeline_schedule).
    const int extra = w.overlap_ep_comm && w.model.moe() && p.ep > 1 ? 1 : 0;
    if (p.v_shape) // DualPipeV: 2 pp + 1 chunks' activations, each half a stage's layers (DUALPIPE-REPO)
      c.in_flight_micro_batches = std::min(p.pp + 1, std::max(1, w.micro_batches()));
    else if (w.virtual_stages > 1 && in_flight == InFlight::megatron)
      c.in_flight_micro_batches = static_cast<int>(
          std::ceil(std::min<double>(2.0 * (p.pp - s - 1) + (w.virtual_stages - 1) * p.pp + 1 + extra,
                                     static_cast<double>(w.micro_batches()) * w.virtual_stages) /
                    w.virtual_stages));
    else
      c.in_flight_micro_batches = std::min(p.pp - s + extra, std::max(1, w.micro_batches()));
    const auto m = workload::rank_memory(w.model, c);
    if (m.total() > worst.total()) {
      worst = m;
      if (stage_out != nullptr)
        *stage_out = s;
    }
  }
  return worst;
}

double usable_gpu_memory(const catalog::GpuSpec& gpu) {
  const double context = gpu.context_memory ? gpu.context_memory->value.si() : 0.0;
  return gpu.memory.value.si() - context;
}

MemoryFit memory_fit(const WorkloadConfig& w, double usable) {
  MemoryFit f;
  f.usable = usable;
  f.need = peak_rank_memory(w, &f.stage, InFlight::megatron);
  f.floor = peak_rank_memory(w, &f.floor_stage, InFlight::one_f_one_b);
  if (f.need.total() <= usable)
    f.verdict = MemoryFit::Verdict::fits;
  else if (f.floor.total() <= usable)
    f.verdict = MemoryFit::Verdict::uncertain;
  else
    f.verdict = MemoryFit::Verdict::too_large;
  return f;
}

std::string model_and_memory_line(const WorkloadConfig& w, const catalog::GpuSpec& gpu) {
  const auto fit = memory_fit(w, usable_gpu_memory(gpu));
  const auto& m = fit.need;
  return fmt::format("model: {:.2f} B parameters; GPU memory: {:.1f} of {:.1f} GiB on pipeline stage {} "
                     "(weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, activations {:.1f} GiB)",
                     workload::parameter_count(w.model, w.seq_len) / 1e9, m.total() / kGiB, fit.usable / kGiB,
                     fit.stage, m.weights / kGiB, m.gradients / kGiB, m.optimizer / kGiB,
                     m.activations / kGiB);
}

std::string memory_warning(const MemoryFit& fit, std::string_view gpu) {
  return fmt::format(
      "GPU memory may not suffice: Megatron's interleaved schedule keeps activations for more micro-batches "
      "than 1F1B, so a GPU of pipeline stage {} needs {:.1f} GiB (activations {:.1f}) where each {} has "
      "{:.1f} GiB; a schedule keeping no more micro-batches in flight than 1F1B needs {:.1f} GiB "
      "(activations {:.1f}, stage {}). Whether it fits depends on the framework's schedule: check its "
      "peak memory on one pipeline before committing",
      fit.stage, fit.need.total() / kGiB, fit.need.activations / kGiB, gpu, fit.usable / kGiB,
      fit.floor.total() / kGiB, fit.floor.activations / kGiB, fit.floor_stage);
}

} // namespace dpusim::scenario
