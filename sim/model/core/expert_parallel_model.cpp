// Expert parallelism (mixture of experts): experts spread over groups of data-parallel ranks; the
// dispatch and combine all-to-alls are simulated once on the variant's transport (the probe) and reused.
#include "sim/model/core/degrees.hpp"
#include "sim/model/model.hpp"
#include "sim/plan/iteration_plan.hpp"

#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

class ExpertParallelModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "expert-parallel"; }
  [[nodiscard]] std::string_view summary() const override {
    return "mixture-of-experts expert parallelism; dispatch/combine all-to-alls of a stage's groups "
           "simulated together once (probe)";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"workload.parallelism.ep", "count", "1",
         "expert-parallel degree (MoE), a divisor of dp and of the model's experts"},
        {"workload.communication.ep_dispatch", "choice", "all_to_all",
         "all_to_all (NCCL's: every copy of a token to its expert's rank, through the GPU on the "
         "destination's rail) | deepep (DeepSeek-V3's: a token once over RDMA to each node it reaches, to "
         "the GPU of the same position, then over NVLink to each GPU it reaches there; needs ep > 1)"}};
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto& w = s.workload;
    const auto& p = w.parallelism;
    if (p.ep < 1) {
      out.push_back({"workload.parallelism.ep", fmt::format("must be at least 1, found {}", p.ep)});
      return;
    }
    if (p.ep > 1 && !w.model.moe())
      out.push_back(
          {"workload.parallelism.ep",
           "expert parallelism (ep > 1) needs a mixture-of-experts model (experts, top_k, expert_ffn)"});
    if (p.dp >= 1 && p.dp % p.ep != 0)
      out.push_back(
          {"workload.parallelism.ep",
           fmt::format("ep = {} must divide dp = {} (expert-parallel groups are made of data-parallel "
                       "ranks)",
                       p.ep, p.dp)});
    if (w.ep_dispatch_per_node && p.ep < 2)
      out.push_back({"workload.communication.ep_dispatch",
                     "deepep dispatches tokens to expert-parallel ranks: it needs ep > 1",
                     "workload.parallelism.ep"});
    if (w.model.moe() && w.model.experts % p.ep != 0)
      out.push_back({"workload.parallelism.ep",
                     fmt::format("ep = {} must divide the model's {} experts", p.ep, w.model.experts)});
  }
  void add_probes(plan::ProbeContext& ctx) const override {
    // The all-to-all of every expert group of the first stage at once (dispatch, and likewise combine):
    // they run together, one per tensor-parallel rank and group of data-parallel ranks, and share the
    // fabric's links (hash collisions and oversubscribed up-links show only with all of them).
    const auto& p = ctx.parallelism;
    if (p.ep > 1 && ctx.first_stage.ep_bytes > 0)
      for (int t = 0; t < p.tp; ++t)
        for (int d = 0; d < p.dp; d += p.ep)
          (void)plan::append_to_graph(
              ctx.plan.ep_probe,
              // Per node, as DeepEP dispatches; under uneven routing (workload.routing) every rank sends
              // each expert rank its share.
              ctx.first_stage.ep_dispatch
                  ? ctx.lowering.expert_dispatch(workload::ep_group(p, t, d, 0), *ctx.first_stage.ep_dispatch)
              : ctx.first_stage.ep_rank_shares.empty()
                  ? ctx.lowering.collective(plan::CollectiveKind::all_to_all, ctx.algorithm,
                                            workload::ep_group(p, t, d, 0), ctx.first_stage.ep_bytes)
                  : ctx.lowering.all_to_all(workload::ep_group(p, t, d, 0), ctx.first_stage.ep_bytes,
                                            ctx.first_stage.ep_rank_shares),
              {});
  }
};

} // namespace

std::unique_ptr<Model> make_expert_parallel_model() {
  return std::make_unique<ExpertParallelModel>();
}

} // namespace dpusim::model
