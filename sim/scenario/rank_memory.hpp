// The memory one GPU needs for its shard of the model and the activations its schedule keeps alive, and
// whether it fits the GPU (docs/models/workload.md, "Memory per rank").
#pragma once

#include "models/workload/memory.hpp"
#include "sim/scenario/scenario.hpp"

namespace dpusim::catalog {
struct GpuSpec;
}

namespace dpusim::scenario {

/// How many micro-batches of activations a pipeline stage is taken to keep alive.
enum class InFlight {
  megatron,    // Megatron-LM's schedules: 1F1B's min(p − s, m); interleaved, its warm-up of chunks
  one_f_one_b, // 1F1B's count, also under interleaving: a schedule that keeps no more than 1F1B does
};

/// The per-rank memory of the most loaded pipeline stage, for reports and the fit check.
workload::MemoryBreakdown peak_rank_memory(const WorkloadConfig& w, int* stage = nullptr,
                                           InFlight in_flight = InFlight::megatron);

/// What training may hold on one GPU: the memory the device reports less its CUDA context (bytes).
double usable_gpu_memory(const catalog::GpuSpec& gpu);

/// Whether the most loaded stage fits. Only an interleaved schedule's count of in-flight micro-batches
/// is uncertain (Megatron's warm-up keeps more than 1F1B; Llama 3's modified schedule is not published in
/// full): it `fits` when Megatron's count does, is `uncertain` when only 1F1B's count does (the run goes
/// on, with a warning that gives both), and `too_large` when neither does.
struct MemoryFit {
  enum class Verdict { fits, uncertain, too_large };
  Verdict verdict = Verdict::fits;
  workload::MemoryBreakdown need; // with Megatron's count
  int stage = 0;
  workload::MemoryBreakdown floor; // with 1F1B's count (the same as `need` without interleaving)
  int floor_stage = 0;
  double usable = 0; // bytes
};
MemoryFit memory_fit(const WorkloadConfig& w, double usable);

/// One line for the console: the model's parameters and what the most loaded GPU holds against what it
/// has ("model: 12.85 B parameters; GPU memory: 33.7 of 79.3 GiB on pipeline stage 0 (weights 3.0, ...)").
std::string model_and_memory_line(const WorkloadConfig& w, const catalog::GpuSpec& gpu);

/// The warning of an `uncertain` fit: both counts, what each needs, and what the GPU has.
std::string memory_warning(const MemoryFit& fit, std::string_view gpu);

} // namespace dpusim::scenario
