#include "sim/plan/stage_costs.hpp"

#include "models/workload/layer_kinds.hpp"

#include <algorithm>
#include <array>
#include <map>

namespace dpusim::plan {
namespace {
// Transformer Engine's default userbuffers configuration (TE-UB, initialize_ub's get_default_config): the
// pipelined and bulk overlaps take 16 SMs for their communication and split a GEMM into 4 chunks.
constexpr int kTeUbPipelineSplits = 4;
constexpr double kTeUbCommSms = 16;
// The SMs DeepEP's dispatch and combine kernels take beside the computation (DSV3-TR section 3.2.2; what
// Megatron-Bridge gives DeepEP with the expert-parallel overlap: MCORE-A2A-OVERLAP).
constexpr int kDeepEpSms = 20;
} // namespace

namespace {

/// The weight gradients' GEMMs of a backward pass: each linear layer's second GEMM (models/workload/
/// transformer.cpp lists a linear layer's data gradient, then its weight gradient, under one name), and
/// those named as weight gradients (the router's, the output layer's).
workload::LayerWork wgrad_part(const workload::LayerWork& backward) {
  workload::LayerWork part;
  std::string_view previous;
  for (const auto& g : backward.gemms) {
    if ((g.linear && g.name == previous) || g.name.ends_with("_wgrad"))
      part.gemms.push_back(g);
    previous = g.name;
  }
  return part;
}

/// The costs of one layer of shape `m` (one kind of the model's layers: workload::layer_shape).
LayerCosts layer_costs(const scenario::WorkloadConfig& w, const compute::GpuComputeModel& gpu,
                       const workload::TransformerShape& m, const workload::LayerConfig& lc) {
  using workload::Recompute;
  const auto& p = w.parallelism;
  LayerCosts l;
  const auto fwd = workload::layer_forward(m, lc);
  const auto bwd = workload::layer_backward(m, lc);
  l.fwd_s = gpu.time(fwd, w.precision).si();
  l.bwd_s = gpu.time(bwd, w.precision).si();
  l.fwd_mlp_s = gpu.time(workload::mlp_part(fwd), w.precision).si();
  l.bwd_mlp_s = gpu.time(workload::mlp_part(bwd), w.precision).si();
  l.bwd_wgrad_s = gpu.time(wgrad_part(bwd), w.precision).si();
  l.fwd_tp = p.tp > 1 ? 2 : 0;
  l.bwd_tp = l.fwd_tp;
  l.bwd_tp_bwd = l.fwd_tp;
  // Expert parallelism: each MoE layer dispatches its tokens to the experts' ranks and combines the
  // results (two all-to-alls), in the backward pass likewise, and again when recomputing the forward.
  l.fwd_ep = m.moe() && p.ep > 1 ? 2 : 0;
  l.bwd_ep = l.fwd_ep;
  // Context parallelism (ring attention): each layer gathers the other ranks' keys and values while
  // computing attention on what has arrived; the backward pass sends them and their gradients around
  // (two exchanges), and a full recomputation gathers them once more.
  l.fwd_cp = p.cp > 1 ? 1 : 0;
  l.bwd_cp = 2 * l.fwd_cp;
  l.fwd_kernels = fwd.kernels();
  l.bwd_kernels = bwd.kernels();
  if (w.recompute == Recompute::full) {
    l.bwd_kernels += fwd.kernels();
    l.bwd_s += l.fwd_s;
    l.bwd_recompute_s = l.fwd_s;
    l.recompute_flops = fwd.flops();
    l.bwd_tp += l.fwd_tp;
    l.bwd_ep += l.fwd_ep;
    l.bwd_cp += l.fwd_cp;
  } else if (w.recompute == Recompute::selective) {
    const auto core = workload::attention_core_forward(m, lc);
    l.bwd_s += gpu.time(core, w.precision).si();
    l.bwd_kernels += core.kernels();
    l.recompute_flops = core.flops();
  }
  // Flash attention's backward recomputes the scores: executed FLOPs, not model FLOPs (the MFU convention
  // counts the model's forward and backward once, docs/metrics.md).
  double attention_recompute_flops = 0;
  for (const auto& g : bwd.gemms)
    if (g.name == "flash_attn_bwd_recompute")
      attention_recompute_flops += g.flops();
  l.model_flops = fwd.flops() + bwd.flops() - attention_recompute_flops;
  l.recompute_flops += attention_recompute_flops;
  l.params = workload::layer_parameter_count(m, p.ep) / p.tp;
  l.tensors = workload::layer_weight_matrices(m, p.ep);
  return l;
}

/// A per-node dispatch's bytes per 16-bit byte, averaged over an expert layer's exchanges: one probe
/// stands for all of them, and where bandwidth sets their pace the sum is what counts. With an FP8
/// dispatch, the forward dispatch (and its recomputation) sends a byte and a 4-byte scale per 128
/// values (DSV3-TR section 3.3) of the 2 bytes; the combine and the backward's two stay 16-bit.
double fp8_dispatch_factor(const scenario::WorkloadConfig& w) {
  if (!w.ep_dispatch_fp8)
    return 1.0;
  const bool recomputed = w.recompute == workload::Recompute::full;
  const double exchanges = recomputed ? 6 : 4;
  const double fp8 = recomputed ? 2 : 1;
  constexpr double kFp8PerBf16 = (1.0 + 4.0 / 128) / 2.0;
  return (fp8 * kFp8PerBf16 + (exchanges - fp8)) / exchanges;
}

/// A layer's times, which depend on its experts' load.
constexpr std::array kTimes{&LayerCosts::fwd_s,     &LayerCosts::bwd_s,           &LayerCosts::fwd_mlp_s,
                            &LayerCosts::bwd_mlp_s, &LayerCosts::bwd_recompute_s, &LayerCosts::bwd_wgrad_s};

/// Under uneven routing, each expert layer takes as long as on its group's busiest rank: the all-to-all
/// that combines the experts' results holds every rank until that rank's come back. An expert kind's
/// costs are its layers' mean: their time on the busiest rank, their FLOPs on the mean one (what the
/// group computes, over its ranks, fewer where tokens are dropped). Layers of the same loads share one
/// computation.
LayerCosts uneven_layer_costs(const scenario::WorkloadConfig& w, const compute::GpuComputeModel& gpu,
                              const workload::TransformerShape& shape, workload::LayerConfig lc,
                              const std::vector<workload::GroupLoad>& loads) {
  std::map<std::pair<double, double>, std::pair<LayerCosts, LayerCosts>> by_load;
  LayerCosts sum;
  double model_flops = 0;
  double recompute_flops = 0;
  for (const auto& g : loads) {
    const double kept = 1 - g.dropped;
    auto it = by_load.find({g.max_load, kept});
    if (it == by_load.end()) {
      lc.expert_load = g.max_load;
      auto busiest = layer_costs(w, gpu, shape, lc);
      lc.expert_load = kept;
      it = by_load.emplace(std::pair{g.max_load, kept}, std::pair{busiest, layer_costs(w, gpu, shape, lc)})
               .first;
    }
    const auto& [busiest, average] = it->second;
    for (auto field : kTimes)
      sum.*field += busiest.*field;
    model_flops += average.model_flops;
    recompute_flops += average.recompute_flops;
  }
  // Counts, parameters and kernels do not depend on the load.
  LayerCosts mean = by_load.begin()->second.first;
  const auto n = static_cast<double>(loads.size());
  for (auto field : kTimes)
    mean.*field = sum.*field / n;
  mean.model_flops = model_flops / n;
  mean.recompute_flops = recompute_flops / n;
  return mean;
}

} // namespace

StageCosts stage_costs(const scenario::WorkloadConfig& w, const compute::GpuComputeModel& gpu, int stage) {
  const auto& p = w.parallelism;
  const auto& m = w.model;
  const int chunks = p.pp * w.virtual_stages;
  StageCosts c;
  c.stage = stage;
  const bool first = stage == 0;
  const bool last = stage == chunks - 1;
  c.first = first;
  c.last = last;

  workload::LayerConfig lc;
  lc.micro_batch = w.micro_batch;
  lc.seq_len = w.seq_len;
  lc.tp = p.tp;
  lc.ep = p.ep;
  lc.cp = p.cp;
  lc.sequence_parallel = w.sequence_parallel;
  lc.attention = w.attention;
  lc.precision = w.precision;

  // One LayerCosts per kind of layer the chunk holds, in the order they first appear; under uneven
  // expert routing, an expert kind's from the loads of its layers in the chunk (each layer's own draw,
  // by its index in the model).
  const bool uneven = m.moe() && w.routing && w.routing->uneven();
  const int first_layer = workload::chunk_first_layer(p, m.layers, w.virtual_stages, stage);
  std::vector<int> kind_codes;
  std::vector<std::vector<workload::GroupLoad>> kind_loads;
  for (const int code : workload::chunk_layer_kinds(m, p, w.virtual_stages, stage)) {
    auto it = std::find(kind_codes.begin(), kind_codes.end(), code);
    if (it == kind_codes.end()) {
      kind_codes.push_back(code);
      kind_loads.emplace_back();
      it = kind_codes.end() - 1;
    }
    const auto k = static_cast<std::size_t>(it - kind_codes.begin());
    if (uneven && workload::layer_shape(m, code).moe())
      kind_loads[k].push_back(
          workload::group_load(workload::expert_shares(*w.routing, m.experts, first_layer + c.layers), p.ep,
                               w.routing->capacity_factor));
    c.layer_kinds.push_back(static_cast<int>(k));
    ++c.layers;
  }
  double expert_layers = 0;
  double max_loads = 0;
  double dropped = 0;
  for (std::size_t k = 0; k < kind_codes.size(); ++k) {
    const auto shape = workload::layer_shape(m, kind_codes[k]);
    const auto& loads = kind_loads[k];
    c.kinds.push_back(loads.empty() ? layer_costs(w, gpu, shape, lc)
                                    : uneven_layer_costs(w, gpu, shape, lc, loads));
    for (const auto& g : loads) {
      max_loads += g.max_load;
      dropped += g.dropped;
      ++expert_layers;
    }
  }
  if (expert_layers > 0) {
    c.expert_load_max = max_loads / expert_layers;
    c.dropped_tokens = dropped / expert_layers;
  }
  if (uneven && p.ep > 1)
    c.ep_rank_shares = workload::summarize_routing(m, *w.routing, p.ep).representative_shares;

  double head_fwd_s = 0;
  double head_bwd_s = 0;
  double head_flops_fwd = 0;
  double head_flops_bwd = 0;
  if (last) {
    const auto hf = workload::head_forward(m, lc);
    const auto hb = workload::head_backward(m, lc);
    head_fwd_s = gpu.time(hf, w.precision).si();
    head_bwd_s = gpu.time(hb, w.precision).si();
    c.head_bwd_wgrad_s = gpu.time(wgrad_part(hb), w.precision).si();
    head_flops_fwd = hf.flops();
    c.head_fwd_kernels = hf.kernels();
    c.head_bwd_kernels = hb.kernels();
    head_flops_bwd = hb.flops();
  }

  c.head_fwd_s = head_fwd_s;
  c.head_bwd_s = head_bwd_s;
  c.bwd_tp_bwd_collectives = c.total(&LayerCosts::bwd_tp_bwd);
  if (w.tp_comm_overlap && p.tp > 1) {
    // The GEMMs by name (models/workload/transformer.cpp): a linear layer's backward lists its data
    // gradient, then its weight gradient.
    const auto fwd = workload::layer_forward(m, lc);
    const auto bwd = workload::layer_backward(m, lc);
    auto time_of = [&](const workload::LayerWork& work, std::string_view name, int nth) {
      for (const auto& g : work.gemms)
        if (g.name == name && nth-- == 0)
          return gpu.time(workload::LayerWork{{g}, {}}, w.precision).si();
      return 0.0;
    };
    workload::TpOverlapGemms g;
    g.qkv = time_of(fwd, "qkv", 0);
    g.proj = time_of(fwd, "attn_proj", 0);
    g.fc1 = time_of(fwd, m.activation == workload::Activation::gelu ? "fc1" : "fc1_gate_up", 0);
    g.fc2 = time_of(fwd, "fc2", 0);
    g.proj_dgrad = time_of(bwd, "attn_proj_bwd", 0);
    g.fc2_dgrad = time_of(bwd, "fc2_bwd", 0);
    g.qkv_wgrad = time_of(bwd, "qkv_bwd", 1);
    g.fc1_wgrad = time_of(bwd, "fc1_bwd", 1);
    c.tp_overlap_gemms = g;
    c.tp_overlap.tp = p.tp;
    c.tp_overlap.pipeline_splits = kTeUbPipelineSplits;
    c.tp_overlap.comm_sm_share = gpu.params().sms > 0 ? kTeUbCommSms / gpu.params().sms : 0.0;
  }
  c.fwd_compute_s = c.total(&LayerCosts::fwd_s) + head_fwd_s;
  c.bwd_compute_s = c.total(&LayerCosts::bwd_s) + head_bwd_s;
  c.bwd_wgrad_s = c.total(&LayerCosts::bwd_wgrad_s) + c.head_bwd_wgrad_s;
  c.fwd_tp_collectives =
      c.total(&LayerCosts::fwd_tp) + (p.tp > 1 && first ? 1 : 0); // + vocab-parallel embedding
  c.bwd_tp_collectives = c.total(&LayerCosts::bwd_tp);
  c.tp_bytes = workload::tp_activation_bytes(m, lc, 2.0);
  c.fwd_ep_collectives = c.total(&LayerCosts::fwd_ep);
  c.bwd_ep_collectives = c.total(&LayerCosts::bwd_ep);
  c.ep_bytes = workload::ep_dispatch_bytes(m, lc);
  if (w.ep_dispatch_per_node && m.moe() && p.ep > 1)
    c.ep_dispatch = collectives::ExpertDispatch{.token_bytes = c.ep_bytes / m.top_k * fp8_dispatch_factor(w),
                                                .top_k = m.top_k,
                                                .node_limit = w.routing ? w.routing->node_limit : 0,
                                                .rank_shares = c.ep_rank_shares};
  if (w.overlap_ep_comm && m.moe() && p.ep > 1 && gpu.params().sms > 0)
    c.ep_comm_sm_share =
        std::min(1.0, static_cast<double>(w.ep_comm_sms.value_or(kDeepEpSms)) / gpu.params().sms);
  c.fwd_cp_collectives = c.total(&LayerCosts::fwd_cp);
  c.bwd_cp_collectives = c.total(&LayerCosts::bwd_cp);
  c.cp_bytes = p.cp > 1 ? workload::cp_kv_bytes(m, lc) : 0.0;
  c.cp_hide_s = p.cp > 1 ? gpu.time(workload::attention_core_forward(m, lc), w.precision).si() : 0.0;
  c.model_flops = c.total(&LayerCosts::model_flops) + head_flops_fwd + head_flops_bwd;
  c.hw_flops = c.model_flops + c.total(&LayerCosts::recompute_flops);
  // Activations to the next stage, scattered over the tensor-parallel ranks (Megatron's scatter/gather).
  c.p2p_bytes = last ? 0.0 : workload::tp_activation_bytes(m, lc, 2.0) / p.tp;

  const double embed_params =
      (first || last) ? workload::embedding_parameter_count(m, w.seq_len) / p.tp : 0.0;
  c.embed_params = embed_params;
  c.embed_tensors = (first || last) ? workload::embedding_weight_matrices(m) : 0;
  const double layers_params = c.total(&LayerCosts::params);
  c.params = layers_params + embed_params;
  c.grad_bytes = c.params * w.grad_bytes_per_param;

  // Gradients become ready in backward order: output head, layers from last to first, embedding.
  struct Item {
    double compute_s;
    int ars;
    double params; // parameters whose gradients the item completes
    int a2as = 0;
    int kvs = 0;
    int bwd_ars = 0;  // of `ars`, those of the backward pass proper
    double fwd_s = 0; // the same part of the forward pass
    int fwd_ars = 0;
    int fwd_a2as = 0;
    int fwd_kvs = 0;
    int fwd_kernels = 0;
    double wgrad_s = 0; // of compute_s, the weight gradients' GEMMs
  };
  std::vector<Item> items;
  const bool shared_head = m.tied_embeddings && chunks == 1; // the head's gradients are the embedding's
  if (last)
    items.push_back({head_bwd_s, 0, shared_head ? 0.0 : embed_params, 0, 0, 0, head_fwd_s, 0, 0, 0,
                     c.head_fwd_kernels, c.head_bwd_wgrad_s});
  for (int i = c.layers - 1; i >= 0; --i) {
    const auto& l = c.at(i);
    items.push_back({l.bwd_s, l.bwd_tp, l.params, l.bwd_ep, l.bwd_cp, l.bwd_tp_bwd, l.fwd_s, l.fwd_tp,
                     l.fwd_ep, l.fwd_cp, l.fwd_kernels, l.bwd_wgrad_s});
  }
  if (first) // the vocab-parallel embedding's all-reduce is in the forward pass only
    items.push_back({0.0, 0, (last && !shared_head) ? 0.0 : embed_params, 0, 0, 0, 0.0, p.tp > 1 ? 1 : 0});
  GradBucket open;
  for (const auto& it : items) {
    open.compute_s += it.compute_s;
    open.wgrad_s += it.wgrad_s;
    open.tp_collectives += it.ars;
    open.tp_bwd_collectives += it.bwd_ars;
    open.ep_collectives += it.a2as;
    open.cp_collectives += it.kvs;
    open.params += it.params;
    open.bytes += it.params * w.grad_bytes_per_param;
    open.fwd_compute_s += it.fwd_s;
    open.fwd_tp_collectives += it.fwd_ars;
    open.fwd_ep_collectives += it.fwd_a2as;
    open.fwd_cp_collectives += it.fwd_kvs;
    open.fwd_kernels += it.fwd_kernels;
    if (open.bytes >= w.grad_bucket.si()) {
      c.buckets.push_back(open);
      open = GradBucket{};
    }
  }
  if (open.bytes > 0 || open.compute_s > 0 || c.buckets.empty()) {
    c.buckets.push_back(open);
  } else { // forward work only (the embedding's all-reduce): it runs with the last bucket's parameters
    auto& b = c.buckets.back();
    b.fwd_compute_s += open.fwd_compute_s;
    b.fwd_tp_collectives += open.fwd_tp_collectives;
    b.fwd_ep_collectives += open.fwd_ep_collectives;
    b.fwd_cp_collectives += open.fwd_cp_collectives;
    b.fwd_kernels += open.fwd_kernels;
  }

  // Adam step, memory-bound: read gradient (4 B), read and write fp32 master weight and both moments
  // (3 x 8 B), write the 16-bit weight (2 B) per parameter held by this rank's optimizer.
  const double opt_params = w.zero_stage >= 1 ? c.params / (p.dp * p.cp) : c.params;
  c.optimizer_s = gpu.stream_time(opt_params * 30.0, 4).si();
  // Below 16 bits, the updated weights of the linear layers are cast once per step to both layouts the
  // GEMMs read (Transformer Engine keeps the copies over the micro-batches of a step): one cast per layer.
  if (workload::low_precision(w.precision) && c.layers > 0) {
    const auto cast = workload::cast_cost(w.precision, layers_params);
    c.optimizer_s += gpu.stream_time(cast.bytes(), cast.kernels() * c.layers).si();
  }
  return c;
}

} // namespace dpusim::plan
