// Expert parallelism (mixture of experts): experts spread over groups of data-parallel ranks; the
// dispatch and combine all-to-alls are simulated once on the variant's transport (the probe) and reused.
#include "sim/model/model.hpp"
#include "sim/model/sections/degrees.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
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
         "the GPU of the same position, then over NVLink to each GPU it reaches there; needs ep > 1)"},
        {"workload.communication.ep_dispatch_fp8", "bool", "false",
         "with ep_dispatch: deepep, the forward dispatch in FP8 with a scale per 128 values (DeepSeek-V3); "
         "the combine and the backward pass's exchanges stay 16-bit"},
        {"workload.overlap_ep_comm", "bool", "false",
         "Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm): in the steady state each stage "
         "runs one micro-batch's forward beside another's backward, layer by layer, every dispatch and "
         "combine beside the other pass's computation; needs ep > 1, and virtual_stages > 1 with pp > 1"},
        {"workload.communication.ep_comm_sms", "count", "20",
         "with overlap_ep_comm: the GPU's SMs the all-to-all's kernels take while they run beside the "
         "computation (20: DeepEP's with the overlap, DeepSeek-V3)"}};
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
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
    if (w.ep_dispatch_fp8 && !w.ep_dispatch_per_node)
      out.push_back({"workload.communication.ep_dispatch_fp8",
                     "an FP8 dispatch is DeepEP's: add workload.communication.ep_dispatch: deepep"});
    if (w.overlap_ep_comm)
      check_overlap(s, cat, out);
    else if (w.ep_comm_sms)
      out.push_back(
          {"workload.communication.ep_comm_sms",
           "the SMs of the all-to-alls beside the computation: add workload.overlap_ep_comm: true"});
    if (w.model.moe() && w.model.experts % p.ep != 0)
      out.push_back({"workload.parallelism.ep",
                     fmt::format("ep = {} must divide the model's {} experts", p.ep, w.model.experts)});
  }
  /// Megatron-Core's rules for --overlap-moe-expert-parallel-comm (megatron/training/arguments.py), and
  /// what the overlap's model needs.
  static void check_overlap(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) {
    const auto& w = s.workload;
    const auto& p = w.parallelism;
    constexpr std::string_view key = "workload.overlap_ep_comm";
    if (p.ep < 2 || !w.model.moe())
      out.push_back(
          {std::string(key),
           "overlap_ep_comm hides expert-parallel all-to-alls: it needs a mixture of experts and ep > 1",
           "workload.parallelism.ep"});
    if (p.pp > 1 && w.virtual_stages < 2)
      out.push_back(
          {std::string(key),
           fmt::format("with pp = {} Megatron-Core's combined 1F1B runs on the interleaved schedule "
                       "only: set workload.parallelism.virtual_stages to 2 or more",
                       p.pp),
           "workload.parallelism.virtual_stages"});
    if (w.zero_stage >= 3)
      out.push_back(
          {std::string(key),
           "overlap_ep_comm is not modelled with zero 3 (its per-layer parameter gathers); use zero "
           "1 or 2",
           "workload.zero"});
    const auto* node = cat.node(s.cluster.node);
    const auto* gpu = node != nullptr ? cat.gpu(node->gpu) : nullptr;
    if (gpu != nullptr && gpu->sms && w.ep_comm_sms && *w.ep_comm_sms >= gpu->sms->value)
      out.push_back(
          {"workload.communication.ep_comm_sms",
           fmt::format("the all-to-alls cannot take {} of the {}'s {:.0f} SMs: the computation beside "
                       "them needs some; give fewer",
                       *w.ep_comm_sms, gpu->name, gpu->sms->value)});
    if (gpu != nullptr && !gpu->sms)
      out.push_back({std::string(key),
                     fmt::format("overlap_ep_comm needs the GPU's SM count (the all-to-all's kernels take "
                                 "some), and the catalog's {} has no sms; add it to the GPU's entry or "
                                 "remove the key",
                                 gpu->name)});
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
  /// With the overlap: of the all-to-alls a GPU runs, the share that holds up its computation, on the
  /// stages where it is least and most (the longer a stage's warm-up, the more of its passes run alone).
  static void report_overlap(const RunView& run, report::VariantResult& r) {
    std::map<int, std::pair<double, double>> by_stage; // stage -> (all-to-all time, exposed)
    for (const auto& ti : run.iteration.info) {
      if (ti.dp != 0 || ti.ep_collectives == 0)
        continue;
      auto& [all, exposed] = by_stage[ti.stage];
      all += ti.ep_collectives * r.ep_collective_s;
      exposed += run.iteration.ep_exposed_s(ti);
    }
    std::erase_if(by_stage, [](const auto& e) { return e.second.first <= 0; });
    if (by_stage.empty())
      return;
    const auto share = [](const auto& e) { return e.second.second / e.second.first; };
    const auto [least, most] = std::minmax_element(
        by_stage.begin(), by_stage.end(), [&](const auto& a, const auto& b) { return share(a) < share(b); });
    const auto at = [&](const auto& e) {
      return fmt::format("{:.0f}% of {:.2f} s on stage {}", 100 * share(e), e.second.first, e.first);
    };
    r.notes.push_back(fmt::format(
        "Expert-parallel overlap ({}): of the all-to-alls a GPU runs per step, {} hold up its "
        "computation{}: those of the warm-up's and the drain's passes and of recomputed forwards run alone, "
        "and beside the other pass they take SMs from it or outlast it",
        run.scenario.workload.parallelism.v_shape ? "DualPipeV" : "combined 1F1B",
        least == most ? at(*least) : fmt::format("from {} to {}", at(*least), at(*most)),
        by_stage.size() > 1 ? " (the longer a stage's warm-up, the more)" : ""));
  }

  /// With a per-node dispatch: how many of its group's other nodes a token crosses to, against the
  /// copies NCCL's all-to-all would send across (what the network carries, per token).
  void report(const RunView& run, report::VariantResult& r) const override {
    if (run.scenario.workload.overlap_ep_comm)
      report_overlap(run, r);
    const auto& w = run.scenario.workload;
    const auto& p = w.parallelism;
    const int per_node = run.scenario.cluster.gpus_per_node;
    if (!w.ep_dispatch_per_node || !w.model.moe() || p.ep < 2 || per_node < 1)
      return;
    std::map<int, int> index; // node -> its place among the group's nodes
    std::vector<int> nodes;
    for (int g : workload::ep_group(p, 0, 0, 0))
      nodes.push_back(index.emplace(g / per_node, static_cast<int>(index.size())).first->second);
    collectives::ExpertDispatch d;
    d.token_bytes = 1;
    d.top_k = w.model.top_k;
    d.node_limit = w.routing ? w.routing->node_limit : 0;
    if (w.routing && w.routing->uneven())
      d.rank_shares = workload::summarize_routing(w.model, *w.routing, p.ep).representative_shares;
    const auto reach = collectives::dispatch_reach(d, nodes);
    // From the group's first node: its other nodes reached, and the copies landing on them.
    double crossed = 0;
    double copies = 0;
    for (std::size_t n = 1; n < reach.node.size(); ++n)
      crossed += reach.node[n];
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i] != 0)
        copies +=
            d.top_k * (d.rank_shares.empty() ? 1.0 / static_cast<double>(nodes.size()) : d.rank_shares[i]);
    if (index.size() < 2 || copies <= 0)
      return;
    r.notes.push_back(fmt::format(
        "Expert dispatch per node (DeepEP){}: a token crosses to {:.2f} of its expert group's {} other nodes "
        "on "
        "average, where NCCL's all-to-all sends {:.2f} of its {} copies across: {:.0f}% of the network bytes",
        d.node_limit > 0 ? fmt::format(", at most {} nodes a token", d.node_limit) : std::string(), crossed,
        index.size() - 1, copies, d.top_k, 100 * crossed / copies));
  }
};

} // namespace

std::unique_ptr<Model> make_expert_parallel_model() {
  return std::make_unique<ExpertParallelModel>();
}

} // namespace dpusim::model
