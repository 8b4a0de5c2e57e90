// GPU memory: every rank must hold its shard of weights, gradients and optimizer state and the
// activations its schedule keeps alive (sim/scenario/rank_memory.hpp).
#include "sim/model/model.hpp"
#include "sim/scenario/rank_memory.hpp"

#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

class MemoryModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "memory"; }
  [[nodiscard]] std::string_view summary() const override {
    return "per-rank weights, gradients, optimizer state and live activations against the GPU's memory";
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    // Only a consistent layout has a memory footprint: anything reported before this is fixed first.
    const auto* node = cat.node(s.cluster.node);
    if (!out.empty() || node == nullptr)
      return;
    int stage = 0;
    const auto mem = scenario::peak_rank_memory(s.workload, &stage);
    const auto* gpu = cat.gpu(node->gpu);
    // What training may hold: the device's memory less what the CUDA context takes first.
    const double context = gpu->context_memory ? gpu->context_memory->value.si() : 0.0;
    const double usable = gpu->memory.value.si() - context;
    if (mem.total() <= usable)
      return;
    auto gib = [](double b) { return b / (1024.0 * 1024.0 * 1024.0); };
    out.push_back(
        {"workload",
         fmt::format("the model does not fit in GPU memory: a GPU of pipeline stage {} needs {:.1f} GiB "
                     "(weights {:.1f}, gradients {:.1f}, optimizer {:.1f}, activations {:.1f}) but each {} "
                     "has {:.1f} GiB for them ({:.1f} GiB, less {:.1f} GiB for the CUDA context); try "
                     "recompute: full, a smaller micro_batch, more tensor or pipeline parallelism, or a ZeRO "
                     "stage (zero: 1, 2 or 3)",
                     stage, gib(mem.total()), gib(mem.weights), gib(mem.gradients), gib(mem.optimizer),
                     gib(mem.activations), gpu->name, gib(usable), gib(gpu->memory.value.si()),
                     gib(context))});
  }
};

} // namespace

std::unique_ptr<Model> make_memory_model() {
  return std::make_unique<MemoryModel>();
}

} // namespace dpusim::model
