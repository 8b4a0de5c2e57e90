// GPU memory: every rank must hold its shard of weights, gradients and optimizer state and the
// activations its schedule keeps alive (sim/scenario/rank_memory.hpp).
#include "sim/model/model.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/rank_memory.hpp"

#include <fmt/format.h>
#include <memory>
#include <string>
#include <vector>

namespace dpusim::model {
namespace {

class MemoryModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "memory"; }
  [[nodiscard]] std::string_view summary() const override {
    return "per-rank weights, gradients, optimizer state and live activations against the GPU's memory";
  }
  /// What would lower the footprint, leaving out what the workload already does.
  static std::string remedies(const scenario::WorkloadConfig& w) {
    std::vector<std::string> r;
    if (w.recompute != workload::Recompute::full)
      r.emplace_back("recompute: full");
    if (w.micro_batch > 1)
      r.emplace_back("a smaller micro_batch");
    r.emplace_back("more tensor or pipeline parallelism");
    if (w.zero_stage < 3)
      r.push_back(w.zero_stage == 2   ? std::string("ZeRO stage 3 (zero: 3)")
                  : w.zero_stage == 1 ? std::string("a higher ZeRO stage (zero: 2 or 3)")
                                      : std::string("a ZeRO stage (zero: 1, 2 or 3)"));
    std::string text;
    for (std::size_t i = 0; i < r.size(); ++i)
      text += (i == 0 ? "" : i + 1 == r.size() ? ", or " : ", ") + r[i];
    return text;
  }

  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    // Only a consistent layout has a memory footprint: anything reported before this is fixed first.
    const auto* node = cat.node(s.cluster.node);
    if (!out.empty() || node == nullptr)
      return;
    const auto* gpu = cat.gpu(node->gpu);
    const auto fit = scenario::memory_fit(s.workload, scenario::usable_gpu_memory(*gpu));
    if (fit.verdict != scenario::MemoryFit::Verdict::too_large)
      return; // an uncertain fit runs, and its result says so (report)
    // Refused on what even 1F1B's count of in-flight micro-batches needs.
    const auto& mem = fit.floor;
    auto gib = [](double b) { return b / (1024.0 * 1024.0 * 1024.0); };
    const double context = gpu->memory.value.si() - fit.usable;
    out.push_back(
        {"workload",
         fmt::format("the model does not fit in GPU memory: a GPU of pipeline stage {} needs {:.1f} GiB "
                     "(weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, activations {:.1f}) but each {} "
                     "has {:.1f} GiB for them ({:.1f} GiB, less {:.1f} GiB for the CUDA context); try {}{}",
                     fit.floor_stage, gib(mem.total()), gib(mem.weights), gib(mem.gradients),
                     gib(mem.optimizer), gib(mem.activations), gpu->name, gib(fit.usable),
                     gib(gpu->memory.value.si()), gib(context), remedies(s.workload),
                     s.workload.virtual_stages > 1
                         ? fmt::format(" (this counts the micro-batches 1F1B keeps in flight; Megatron's "
                                       "interleaved schedule keeps more: {:.1f} GiB at stage {})",
                                       gib(fit.need.total()), fit.stage)
                         : std::string())});
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto fit =
        scenario::memory_fit(run.scenario.workload, scenario::usable_gpu_memory(run.hardware.gpu));
    if (fit.verdict == scenario::MemoryFit::Verdict::uncertain)
      r.notes.push_back(scenario::memory_warning(fit, run.hardware.gpu.name));
  }
};

} // namespace

std::unique_ptr<Model> make_memory_model() {
  return std::make_unique<MemoryModel>();
}

} // namespace dpusim::model
