#include "sim/plan/combined_step.hpp"

#include <algorithm>

namespace dpusim::plan {

CombinedStep combined_step(const StageCosts& fwd, const StageCosts& bwd) {
  CombinedStep step;
  step.sm_share = std::max(fwd.ep_comm_sm_share, bwd.ep_comm_sm_share);
  step.overlapped = step.sm_share > 0;
  step.compute_s = fwd.fwd_compute_s + bwd.bwd_compute_s;
  // A layer's tensor-parallel collectives: one after its attention, one after its MLP (each pass); its
  // context-parallel exchanges in its attention.
  int fwd_tp = 0;
  for (int l = 0; l < fwd.layers; ++l) {
    const auto& c = fwd.at(l);
    CombinedStep::Layer layer;
    layer.exchanges = c.fwd_ep > 0;
    layer.pre = {c.fwd_s - c.fwd_mlp_s, c.fwd_tp / 2, 0, c.fwd_cp};
    layer.mlp = {c.fwd_mlp_s, c.fwd_tp - c.fwd_tp / 2, 0, 0};
    fwd_tp += c.fwd_tp;
    step.fwd.push_back(layer);
  }
  step.fwd_rest = {fwd.head_fwd_s, fwd.fwd_tp_collectives - fwd_tp, 0, 0};
  for (int l = bwd.layers - 1; l >= 0; --l) {
    const auto& c = bwd.at(l);
    const int recomputed_tp = c.bwd_tp - c.bwd_tp_bwd;
    const int recomputed_cp = c.bwd_recompute_s > 0 ? c.fwd_cp : 0;
    CombinedStep::Layer layer;
    layer.exchanges = c.bwd_ep > 0;
    layer.recompute_exchanges = c.bwd_recompute_s > 0 && c.fwd_ep > 0;
    layer.recompute = {c.bwd_recompute_s, recomputed_tp, 0, recomputed_cp};
    layer.pre = {c.bwd_s - c.bwd_mlp_s - c.bwd_recompute_s, 0, c.bwd_tp_bwd / 2, c.bwd_cp - recomputed_cp};
    layer.mlp = {c.bwd_mlp_s, 0, c.bwd_tp_bwd - c.bwd_tp_bwd / 2, 0};
    step.bwd.push_back(layer);
  }
  step.bwd_rest = {bwd.head_bwd_s, 0, 0, 0};
  return step;
}

std::vector<PipelineOp> stage_schedule(const scenario::WorkloadConfig& w, int stage) {
  const auto& p = w.parallelism;
  const int m = w.micro_batches();
  const bool replicated = p.dp * p.cp > 1;
  const bool zero3 = w.zero_stage >= 3 && replicated;
  const bool gathering = w.zero_stage >= 1 && w.zero_stage < 3 && replicated && w.param_gather_overlapped();
  auto ops = p.v_shape ? dualpipev_schedule(stage, p.pp, m)
                       : pipeline_schedule(stage, p.pp, w.virtual_stages, m,
                                           w.overlap_ep_comm && w.model.moe() && p.ep > 1);
  for (std::size_t k = 0; k + 1 < ops.size(); ++k)
    if (ops[k].with_next &&
        (zero3 || (gathering && ops[k].micro == 0) || (replicated && ops[k + 1].micro == m - 1)))
      ops[k].with_next = false;
  return ops;
}

double CombinedStep::time_s(double scale, double tp_fwd_each_s, double tp_bwd_each_s, double cp_each_s,
                            double a2a_s) const {
  const auto part = [&](const Part& p) {
    return p.compute_s * scale + p.tp_fwd * tp_fwd_each_s + p.tp_bwd * tp_bwd_each_s + p.cp * cp_each_s;
  };
  const auto pass = [&](const std::vector<Layer>& layers, const Part& rest, bool forward) {
    workload::ChunkPass out;
    (forward ? out.after_s : out.before_s) = part(rest);
    for (const auto& l : layers)
      out.layers.push_back({part(l.pre), part(l.mlp), l.exchanges, part(l.recompute), l.recompute_exchanges});
    return out;
  };
  const auto f = pass(fwd, fwd_rest, true);
  const auto b = pass(bwd, bwd_rest, false);
  return overlapped ? workload::combined_step_s(f, b, a2a_s, sm_share)
                    : workload::alone_s(f, a2a_s) + workload::alone_s(b, a2a_s);
}

} // namespace dpusim::plan
