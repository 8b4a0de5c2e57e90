// Context parallelism: each sequence split over cp ranks, two chunks each (balancing the causal mask);
// the ring-attention key/value exchanges are simulated once (the probe) and overlapped with attention.
#include "sim/model/model.hpp"
#include "sim/plan/iteration_plan.hpp"

#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

class ContextParallelModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "context-parallel"; }
  [[nodiscard]] std::string_view summary() const override {
    return "sequences split over cp ranks; ring-attention key/value exchanges simulated once (probe)";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {{"workload.parallelism.cp", "count", "1",
             "context-parallel degree; seq_len must be a multiple of 2 x cp"}};
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto& w = s.workload;
    const int cp = w.parallelism.cp;
    if (cp < 1)
      out.push_back({"workload.parallelism.cp", fmt::format("must be at least 1, found {}", cp)});
    else if (cp > 1 && w.seq_len % (2 * cp) != 0)
      out.push_back(
          {"workload.parallelism.cp",
           fmt::format("seq_len = {} must be a multiple of 2 x cp = {} (each context-parallel rank holds "
                       "two chunks of every sequence, balancing the causal mask)",
                       w.seq_len, 2 * cp)});
  }
  void add_probes(plan::ProbeContext& ctx) const override {
    // One all-gather of keys and values: ring attention passes the same chunks around; the tasks add only
    // what their attention compute does not hide.
    const auto& p = ctx.parallelism;
    if (p.cp > 1 && ctx.first_stage.cp_bytes > 0)
      (void)plan::append_to_graph(ctx.plan.cp_probe,
                                  ctx.lowering.collective(plan::CollectiveKind::all_gather, ctx.algorithm,
                                                          workload::cp_group(p, 0, 0, 0),
                                                          ctx.first_stage.cp_bytes),
                                  {});
  }
};

} // namespace

std::unique_ptr<Model> make_context_parallel_model() {
  return std::make_unique<ContextParallelModel>();
}

} // namespace dpusim::model
