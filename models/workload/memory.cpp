#include "models/workload/memory.hpp"

#include <algorithm>
#include <numeric>

namespace dpusim::workload {

std::string_view recompute_name(Recompute r) {
  switch (r) {
  case Recompute::none:
    return "none";
  case Recompute::selective:
    return "selective";
  case Recompute::full:
    return "full";
  }
  return "none";
}

double layer_activation_bytes(const TransformerShape& m, int micro_batch, int seq_len, int tp,
                              bool sequence_parallel, Recompute recompute, AttentionKernel attention,
                              Precision precision) {
  const double s = seq_len;
  const double b = micro_batch;
  const double h = m.hidden;
  const double a = m.heads;
  const double t = tp;
  const double sbh = s * b * h;
  if (recompute == Recompute::full) // only the layer input is kept, sharded under sequence parallelism
    return 2.0 * sbh / (sequence_parallel ? t : 1.0);
  // Korthikanti et al. 2022, Table 2, in units of sbh bytes: 10 outside the tensor-parallel region
  // (norm inputs 4, the attention's and the MLP's inputs 2 + 2, two dropout masks 1 + 1) and, split over
  // the tensor-parallel ranks, Q, K and V (2 each, K and V shrunk by grouped-query attention), the output
  // projection's input (2), and the MLP's intermediate activations: the up projection's output and
  // GELU's (2 + 2 per ffn/h), or SwiGLU's gate and up projections (2 + 2: Megatron-Core's fused SwiGLU
  // keeps only its input and recomputes the activation, MCORE-SWIGLU) and their product, the down
  // projection's input (2). A GPT layer
  // (MHA, GELU, ffn = 4h) gives 10 + 24. The attention scores (5as/h) are kept only by an unfused
  // kernel without selective recomputation; flash attention recomputes them in its backward pass.
  // Dropout keeps a 1-byte mask per element for backward: after attention and after the MLP (1 + 1 of
  // the 10), and over the scores (1 of the 5as/h). A model trained without dropout keeps none.
  // Below 16 bits, a linear layer keeps the column-wise cast of its input for its weight gradient
  // instead of the 16-bit input (Transformer Engine): the attention's and the MLP's inputs, the output
  // projection's and the down projection's, e bytes an element each.
  // Latent attention (MCORE-MLA) keeps, on the tokens the norm saw, each latent before its RMSNorm (the
  // down projection's output, 2 bytes) and after it (the up projection's input, e bytes); then Q, K (each
  // head qk_dim wide) and V and the output projection's input (v_dim wide) like any attention.
  const double e = low_precision(precision) ? element_bytes(precision) : 2.0;
  const double latents =
      m.mla() ? ((2.0 + e) * (m.q_lora_rank + m.kv_lora_rank) + 2.0 * m.rope_dim) / m.hidden : 0.0;
  const double outside = 4.0 + 2.0 * e + (m.dropout ? 2.0 : 0.0) + latents;
  const double scores = m.dropout ? 5.0 : 4.0;
  // Q and the output projection's input are heads x head_dim wide (h, unless the heads have a width of
  // their own); K and V kv_heads x head_dim.
  const double q = m.attention_width() / h;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim() / h;
  const double ffn =
      m.moe() ? static_cast<double>(m.top_k + m.shared_experts) * m.expert_ffn : static_cast<double>(m.ffn);
  const double mlp = ((m.activation == Activation::gelu ? 2.0 : 4.0) + e) * ffn / h;
  double parallel = 2 * q + 4 * kv + e * q + mlp;
  if (m.mla()) {
    const double qk = static_cast<double>(m.heads) * m.qk_dim() / h;
    const double v = static_cast<double>(m.heads) * m.v_dim() / h;
    parallel = 2 * qk + 2 * qk + 2 * v + e * v + mlp;
  }
  if (m.qk_norm) // the norms' inputs: the queries and keys before them
    parallel += 2.0 * (m.heads + m.kv_heads) * m.qk_dim() / h;
  if (recompute == Recompute::none && attention == AttentionKernel::unfused)
    parallel += scores * a * s / h;
  return sequence_parallel ? sbh * (outside + parallel) / t : sbh * (outside + parallel / t);
}

MemoryBreakdown rank_memory(const TransformerShape& m, const MemoryConfig& c) {
  MemoryBreakdown out;
  // The rank's layers by kind (all of kind 0 unless the caller counted them), each kind's shape.
  auto counts = c.layers_by_kind;
  if (std::accumulate(counts.begin(), counts.end(), 0) == 0)
    counts[0] = c.layers_on_rank;
  double layers_params = 0;
  double experts = 0;
  double largest_layer = 0;
  for (int kind = 0; kind < TransformerShape::kLayerKinds; ++kind) {
    if (counts.at(kind) == 0)
      continue;
    const auto shape = layer_shape(m, kind);
    const double params = layer_parameter_count(shape, c.ep) / c.tp;
    layers_params += counts.at(kind) * params;
    experts += counts.at(kind) * expert_parameter_count(shape, c.ep) / c.tp;
    largest_layer = std::max(largest_layer, params);
  }
  // Experts are sharded over the expert-parallel ranks and replicated over dp / ep of them; the rest over
  // all dp ranks.
  double dense = layers_params - experts;
  if (c.holds_embedding)
    dense += embedding_parameter_count(m, c.seq_len) / c.tp;
  // Mixed-precision Adam (ZeRO paper accounting): 16-bit weights, fp32 gradients accumulated across
  // micro-batches (Megatron's main_grad), fp32 master weights + two fp32 moments.
  const double shards =
      static_cast<double>(c.dp) * c.cp; // Megatron shards over the data- and context-parallel ranks
  auto sharded = [&](double bytes_per_param, int stage) {
    return stage <= c.zero_stage ? bytes_per_param * (dense / shards + experts * c.ep / shards)
                                 : bytes_per_param * (dense + experts);
  };
  // With the parameters kept in the low-precision format (fp8_param_gather), no 16-bit copy of them.
  const double param_bytes = c.low_precision_params ? element_bytes(c.precision) : 2.0;
  out.weights = sharded(param_bytes, 3);
  out.gradients = sharded(4.0, 2);
  out.optimizer = sharded(12.0, 1);
  if (c.zero_stage >= 3 && c.layers_on_rank > 0) {
    // Gathered parameters in flight: about one layer's worth (the submodule being computed and the one
    // being prefetched).
    out.weights += param_bytes * largest_layer;
  }
  if (low_precision(c.precision)) {
    // The linear layers' weights cast to both layouts their GEMMs read, kept for the step (for the layers
    // in flight only, where ZeRO-3 gathers them one layer at a time); with the parameters in the format,
    // only the second layout. Norms and biases are counted with them: a few thousandths of a layer.
    const double copies = c.low_precision_params ? 1.0 : 2.0;
    const double cast = c.zero_stage >= 3 ? std::min(1, c.layers_on_rank) * largest_layer : layers_params;
    out.weights += copies * element_bytes(c.precision) * cast;
  }
  auto layer_activations = [&](const TransformerShape& shape) {
    return layer_activation_bytes(shape, c.micro_batch, c.seq_len / c.cp, c.tp, c.sequence_parallel,
                                  c.recompute, c.attention, c.precision);
  };
  double act = 0;
  for (int kind = 0; kind < TransformerShape::kLayerKinds; ++kind)
    if (counts.at(kind) > 0)
      act += counts.at(kind) * layer_activations(layer_shape(m, kind)) * c.in_flight_micro_batches;
  if (c.recompute == Recompute::full) {
    // While one layer is recomputed for its backward pass, its full activations are alive too.
    act += layer_activation_bytes(m, c.micro_batch, c.seq_len / c.cp, c.tp, c.sequence_parallel,
                                  Recompute::none, c.attention, c.precision);
  }
  out.activations = act;
  return out;
}

} // namespace dpusim::workload
