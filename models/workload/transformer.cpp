#include "models/workload/transformer.hpp"

#include <algorithm>

namespace dpusim::workload {

std::string_view activation_name(Activation a) {
  return a == Activation::gelu ? "gelu" : "swiglu";
}

namespace {
/// Parameters of one feed-forward block of inner size f.
double mlp_parameters(const TransformerShape& m, double f) {
  const double h = m.hidden;
  const double b = m.biases ? 1.0 : 0.0;
  return m.activation == Activation::gelu ? (2 * h * f + b * (f + h)) : (3 * h * f + b * (2 * f + h));
}

/// Parameters of multi-head latent attention (DSV3-CONFIG's modules): the queries' down projection, its
/// RMSNorm and up projection (or one projection), the keys' and values' joint down projection with the
/// shared rotary key, its RMSNorm and up projection, and the output projection.
double latent_attention_parameters(const TransformerShape& m) {
  const double h = m.hidden;
  const double a = m.heads;
  const double b = m.biases ? 1.0 : 0.0;
  const double qr = m.q_lora_rank;
  const double kr = m.kv_lora_rank;
  const double q_out = a * m.qk_dim();
  const double q = qr > 0 ? h * qr + qr + qr * q_out + b * (qr + q_out) : h * q_out + b * q_out;
  const double kv_out = a * (m.head_dim() + m.v_dim());
  const double kv = h * (kr + m.rope_dim) + kr + kr * kv_out + b * (kr + m.rope_dim + kv_out);
  return q + kv + a * m.v_dim() * h + b * h;
}
} // namespace

TransformerShape layer_shape(const TransformerShape& m, int kind) {
  TransformerShape d = m;
  if ((kind & TransformerShape::kDenseFfn) != 0) {
    d.experts = 0;
    d.top_k = 1;
    d.expert_ffn = 0;
    d.shared_experts = 0;
  }
  if ((kind & TransformerShape::kSlidingAttention) == 0) {
    d.sliding_window = 0;
    d.attention_chunk = 0;
  }
  d.dense_layers = 0;
  d.moe_every = 1;
  d.full_attention_every = 0;
  d.mtp_layers = 0;
  d.mtp_module = (kind & TransformerShape::kMtpModule) != 0;
  return d;
}

std::vector<int> layer_kinds(const TransformerShape& m) {
  std::vector<int> kinds;
  kinds.reserve(static_cast<std::size_t>(m.layers + m.mtp_layers));
  for (int l = 0; l < m.layers; ++l)
    kinds.push_back(m.layer_kind(l));
  for (int k = 0; k < m.mtp_layers; ++k)
    kinds.push_back(m.layer_kind(m.layers + k) | TransformerShape::kMtpModule);
  return kinds;
}

double expert_parameter_count(const TransformerShape& m, int ep) {
  return m.moe() ? static_cast<double>(m.experts) / ep * mlp_parameters(m, m.expert_ffn) : 0.0;
}

double layer_parameter_count(const TransformerShape& m, int ep) {
  const double h = m.hidden;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
  const double f = m.ffn;
  const double b = m.biases ? 1.0 : 0.0;
  const double q = m.attention_width(); // h, unless the heads have a width of their own
  const double attention =
      m.mla() ? latent_attention_parameters(m) : h * (q + 2 * kv) + b * (q + 2 * kv) + q * h + b * h;
  const double mlp = m.moe() ? expert_parameter_count(m, ep) + h * m.experts // experts + router
                                   + m.shared_experts * mlp_parameters(m, m.expert_ffn)
                             : mlp_parameters(m, f);
  const double norms = m.biases ? 4 * h : 2 * h; // LayerNorm (scale + bias) or RMSNorm (scale)
  const double sinks = m.attention_sinks ? m.heads : 0.0;
  const double qk_norms = m.qk_norm ? 2.0 * m.qk_dim() : 0.0; // one scale vector for queries, one for keys
  // A multi-token prediction module adds its projection of the two normalised inputs (2h -> h), their
  // two norms and its own final norm (DSV3-CONFIG's eh_proj, enorm, hnorm, shared_head.norm).
  const double mtp = m.mtp_module ? 2 * h * h + b * h + 3 * (m.biases ? 2 * h : h) : 0.0;
  return attention + sinks + qk_norms + mlp + norms + mtp;
}

int layer_weight_matrices(const TransformerShape& m, int ep) {
  const int ffn = m.moe() ? 2 * (m.experts / std::max(1, ep)) + (m.shared_experts > 0 ? 2 : 0) : 2;
  // Latent attention: the down and up projections of the queries (one projection without q_lora_rank)
  // and of the keys and values, and the output projection; otherwise the fused QKV and the output.
  const int attention = m.mla() ? (m.q_lora_rank > 0 ? 5 : 4) : 2;
  return attention + ffn + (m.mtp_module ? 1 : 0);
}

int embedding_weight_matrices(const TransformerShape& m) {
  return 1 + (m.learned_positions ? 1 : 0) + (m.tied_embeddings ? 0 : 1);
}

double embedding_parameter_count(const TransformerShape& m, int seq_len) {
  const double h = m.hidden;
  double p = static_cast<double>(m.vocab) * h;
  if (m.learned_positions)
    p += static_cast<double>(seq_len) * h;
  if (!m.tied_embeddings)
    p += static_cast<double>(m.vocab) * h;
  p += m.biases ? 2 * h : h; // final norm
  return p;
}

double parameter_count(const TransformerShape& m, int seq_len) {
  const auto kinds = layer_kinds(m);
  double p = embedding_parameter_count(m, seq_len);
  for (int kind = 0; kind < TransformerShape::kLayerKinds; ++kind)
    if (const auto n = std::count(kinds.begin(), kinds.end(), kind); n > 0)
      p += static_cast<double>(n) * layer_parameter_count(layer_shape(m, kind));
  return p;
}

double active_parameter_count(const TransformerShape& m, int seq_len) {
  const auto kinds = layer_kinds(m);
  const auto moe_layers = std::count_if(kinds.begin(), kinds.end(), [&](int kind) {
    return m.moe() && (kind & TransformerShape::kDenseFfn) == 0;
  });
  const double idle_experts =
      m.moe() ? static_cast<double>(m.experts - m.top_k) * mlp_parameters(m, m.expert_ffn) : 0.0;
  return parameter_count(m, seq_len) - static_cast<double>(moe_layers) * idle_experts;
}

double megatron_eq2_parameters(int layers, int hidden, int vocab, int seq_len) {
  const double l = layers;
  const double h = hidden;
  return 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (vocab + seq_len) / (12.0 * l * h));
}

double megatron_eq3_flops(double batch, int seq_len, int layers, int hidden, int vocab) {
  const double s = seq_len;
  const double l = layers;
  const double h = hidden;
  return 96.0 * batch * s * l * h * h * (1.0 + s / (6.0 * h) + vocab / (16.0 * l * h));
}

LayerWork mlp_part(const LayerWork& pass) {
  auto in_mlp = [](std::string_view name) {
    for (std::string_view prefix : {"fc1", "fc2", "gelu", "swiglu", "expert_", "shared_"})
      if (name.starts_with(prefix))
        return true;
    return false;
  };
  LayerWork part;
  for (const auto& g : pass.gemms)
    if (in_mlp(g.name))
      part.gemms.push_back(g);
  for (const auto& op : pass.memory_ops)
    if (in_mlp(op.name))
      part.memory_ops.push_back(op);
  return part;
}

double LayerWork::flops() const {
  double f = 0;
  for (const auto& g : gemms)
    f += g.flops();
  return f;
}

namespace {

constexpr double kActBytes = 2.0; // activations are kept in 16-bit in every precision mode

struct Dims {
  double tokens;    // micro_batch * seq_len
  double ln_tokens; // tokens seen by norms/dropouts (divided by tp under sequence parallelism)
  double h;
  double hd;
  double qk;     // each head's query and key width (hd, + the rotary part under latent attention)
  double vd;     // each head's value width
  double heads;  // query heads on this rank
  double kv;     // kv heads on this rank
  double f;      // ffn columns on this rank
  double s;      // keys and values each query attends to: the whole sequence
  double window; // of them, those a flash kernel computes: the sliding window's, the chunk's, or s
  double sq;     // queries on this rank: seq_len / cp
  double b;
  // Mixture of experts, on this rank: its local experts, the tokens each receives (balanced routing:
  // every rank's tokens x top_k spread over all experts; LayerConfig::expert_load times as many on a
  // rank that processes more or fewer), and each expert's FFN columns.
  double local_experts = 0;
  double expert_tokens = 0;
  double ef = 0;
  double sf = 0; // the shared experts side by side, this rank's share
};

Dims dims_of(const TransformerShape& m, const LayerConfig& c) {
  Dims d{};
  d.b = c.micro_batch;
  d.s = c.seq_len;
  d.sq = d.s / c.cp;
  d.window = m.sliding_window > 0    ? std::min<double>(m.sliding_window, d.s)
             : m.attention_chunk > 0 ? std::min<double>(m.attention_chunk, d.s)
                                     : d.s;
  d.tokens = d.b * d.sq;
  d.ln_tokens = c.sequence_parallel ? d.tokens / c.tp : d.tokens;
  d.h = m.hidden;
  d.hd = m.head_dim();
  d.qk = m.qk_dim();
  d.vd = m.v_dim();
  d.heads = static_cast<double>(m.heads) / c.tp;
  d.kv = std::max(1.0, static_cast<double>(m.kv_heads) / c.tp);
  d.f = static_cast<double>(m.ffn) / c.tp;
  if (m.moe()) {
    d.local_experts = static_cast<double>(m.experts) / c.ep;
    d.expert_tokens = d.tokens * m.top_k * c.ep / m.experts * c.expert_load;
    d.ef = static_cast<double>(m.expert_ffn) / c.tp;
    d.sf = static_cast<double>(m.shared_experts) * m.expert_ffn / c.tp;
  }
  return d;
}

void add_attention_core(LayerWork& w, const Dims& d, AttentionKernel kernel, bool backward) {
  // This rank's sq queries attend to all s keys and values (under context parallelism the others'
  // arrive from the other ranks).
  const double batches = d.b * d.heads;
  if (kernel == AttentionKernel::unfused) {
    // Scores are materialised: Q K^T, then a fused scale/mask/softmax, dropout, then P V.
    if (!backward) {
      w.gemms.push_back({"attn_scores", batches, d.sq, d.s, d.qk});
      w.memory_ops.push_back({"softmax", 2 * batches * d.sq * d.s * kActBytes});
      w.memory_ops.push_back({"attn_dropout", batches * d.sq * d.s * (2 * kActBytes + 1)});
      w.gemms.push_back({"attn_values", batches, d.sq, d.vd, d.s});
    } else {
      w.gemms.push_back({"attn_values_dgrad_p", batches, d.sq, d.s, d.vd});
      w.gemms.push_back({"attn_values_dgrad_v", batches, d.s, d.vd, d.sq});
      w.memory_ops.push_back({"attn_dropout_bwd", batches * d.sq * d.s * (2 * kActBytes + 1)});
      w.memory_ops.push_back({"softmax_bwd", 3 * batches * d.sq * d.s * kActBytes});
      w.gemms.push_back({"attn_scores_dgrad_q", batches, d.sq, d.qk, d.s});
      w.gemms.push_back({"attn_scores_dgrad_k", batches, d.s, d.qk, d.sq});
    }
  } else {
    // Flash attention: the same matrix products, scores never leave on-chip memory: forward Q K^T and
    // P V; backward dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q, and the scores again. Under a
    // sliding window the kernel skips the blocks outside it: each query meets `window` keys (an unfused
    // kernel materialises every score and masks them).
    const auto name = backward ? "flash_attn_bwd" : "flash_attn_fwd";
    w.gemms.push_back({name, batches, d.sq, d.qk, d.window});
    w.gemms.push_back({name, batches, d.sq, d.vd, d.window});
    if (backward) {
      w.gemms.push_back({name, batches, d.sq, d.vd, d.window});
      w.gemms.push_back({name, batches, d.sq, d.qk, d.window});
      w.gemms.push_back({"flash_attn_bwd_recompute", batches, d.sq, d.window, d.qk});
    }
  }
}

/// The cast of a 16-bit tensor of `elements` values into the job's low-precision format (nothing at 16
/// bits): an amax kernel where the scale comes from the tensor itself, then one kernel writing both
/// layouts (precision.hpp's cast_cost).
void add_cast(LayerWork& w, Precision p, double elements) {
  if (!low_precision(p))
    return;
  const auto cast = cast_cost(p, elements);
  if (cast.amax_bytes > 0)
    w.memory_ops.push_back({"amax", cast.amax_bytes});
  w.memory_ops.push_back({"quantize", cast.quantize_bytes});
}

/// A linear layer's forward GEMM in the job's precision, after the cast of its input (the GEMM's
/// batch x m x k operand). The weights are cast once per step (stage_costs' optimizer pass), not here.
void add_linear(LayerWork& w, Precision p, Gemm g) {
  add_cast(w, p, g.batch * g.m * g.k);
  g.linear = true;
  w.gemms.push_back(g);
}

/// A linear layer's backward: the cast of the output's gradient (batch x tokens x out), then the data
/// gradient dX = dY W^T and the weight gradient dW = X^T dY, both in the job's precision.
void add_linear_backward(LayerWork& w, Precision p, std::string_view name, double batch, double tokens,
                         double in_cols, double out_cols) {
  add_cast(w, p, batch * tokens * out_cols);
  w.gemms.push_back({name, batch, tokens, in_cols, out_cols, true});
  w.gemms.push_back({name, batch, in_cols, out_cols, tokens, true});
}

/// Router, permutation of the routed tokens into expert order and back, and the experts' FFNs as
/// grouped GEMMs (one per local expert, batched).
void add_moe_forward(LayerWork& w, const TransformerShape& m, const Dims& d, Precision p) {
  const double routed = d.expert_tokens * d.local_experts; // token copies this rank's experts process
  const bool gelu = m.activation == Activation::gelu;
  w.gemms.push_back({"router", 1, d.tokens, static_cast<double>(m.experts), d.h});
  w.memory_ops.push_back({"permute", 2 * routed * d.h * kActBytes});
  add_linear(w, p, {"expert_fc1", d.local_experts, d.expert_tokens, gelu ? d.ef : 2 * d.ef, d.h});
  w.memory_ops.push_back(
      {gelu ? "expert_gelu" : "expert_swiglu", (gelu ? 2 : 3) * routed * d.ef * kActBytes});
  add_linear(w, p, {"expert_fc2", d.local_experts, d.expert_tokens, d.h, d.ef});
  w.memory_ops.push_back({"unpermute", 2 * routed * d.h * kActBytes});
  if (d.sf > 0) { // every token through the shared experts, as one dense FFN of their widths together
    add_linear(w, p, {"shared_fc1", 1, d.tokens, gelu ? d.sf : 2 * d.sf, d.h});
    w.memory_ops.push_back(
        {gelu ? "shared_gelu" : "shared_swiglu", (gelu ? 2 : 3) * d.tokens * d.sf * kActBytes});
    add_linear(w, p, {"shared_fc2", 1, d.tokens, d.h, d.sf});
  }
}

void add_moe_backward(LayerWork& w, const TransformerShape& m, const Dims& d, Precision p) {
  const double routed = d.expert_tokens * d.local_experts;
  const bool gelu = m.activation == Activation::gelu;
  const double fc1_cols = gelu ? d.ef : 2 * d.ef;
  w.memory_ops.push_back({"unpermute_bwd", 2 * routed * d.h * kActBytes});
  add_linear_backward(w, p, "expert_fc2", d.local_experts, d.expert_tokens, d.ef, d.h);
  w.memory_ops.push_back(
      {gelu ? "expert_gelu_bwd" : "expert_swiglu_bwd", (gelu ? 3 : 5) * routed * d.ef * kActBytes});
  add_linear_backward(w, p, "expert_fc1", d.local_experts, d.expert_tokens, d.h, fc1_cols);
  w.memory_ops.push_back({"permute_bwd", 2 * routed * d.h * kActBytes});
  w.gemms.push_back({"router_dgrad", 1, d.tokens, d.h, static_cast<double>(m.experts)});
  w.gemms.push_back({"router_wgrad", 1, d.h, static_cast<double>(m.experts), d.tokens});
  if (d.sf > 0) {
    add_linear_backward(w, p, "shared_fc2", 1, d.tokens, d.sf, d.h);
    w.memory_ops.push_back(
        {gelu ? "shared_gelu_bwd" : "shared_swiglu_bwd", (gelu ? 3 : 5) * d.tokens * d.sf * kActBytes});
    add_linear_backward(w, p, "shared_fc1", 1, d.tokens, d.h, gelu ? d.sf : 2 * d.sf);
  }
}

void append(LayerWork& w, const LayerWork& more) {
  w.gemms.insert(w.gemms.end(), more.gemms.begin(), more.gemms.end());
  w.memory_ops.insert(w.memory_ops.end(), more.memory_ops.begin(), more.memory_ops.end());
}

/// Latent attention's projections (DSV3-CONFIG; Megatron-Core's MLA, MCORE-MLA): the down projections
/// are replicated on the tensor-parallel ranks and run on the tokens the norm saw (a sequence-parallel
/// rank's share), each followed by an RMSNorm of its latent; the up projections are column-parallel over
/// the heads and run on all the tokens, like the fused QKV they replace.
void add_latent_projections(LayerWork& w, const TransformerShape& m, const Dims& d, Precision p) {
  const double qr = m.q_lora_rank;
  const double kr = m.kv_lora_rank;
  if (qr > 0) {
    add_linear(w, p, {"q_down", 1, d.ln_tokens, qr, d.h});
    w.memory_ops.push_back({"q_norm", 2 * d.ln_tokens * qr * kActBytes});
    add_linear(w, p, {"q_up", 1, d.tokens, d.heads * d.qk, qr});
  } else {
    add_linear(w, p, {"q_proj", 1, d.tokens, d.heads * d.qk, d.h});
  }
  add_linear(w, p, {"kv_down", 1, d.ln_tokens, kr + m.rope_dim, d.h});
  w.memory_ops.push_back({"kv_norm", 2 * d.ln_tokens * kr * kActBytes});
  add_linear(w, p, {"kv_up", 1, d.tokens, d.heads * (d.hd + d.vd), kr});
}

void add_latent_projections_backward(LayerWork& w, const TransformerShape& m, const Dims& d, Precision p) {
  const double qr = m.q_lora_rank;
  const double kr = m.kv_lora_rank;
  add_linear_backward(w, p, "kv_up_bwd", 1, d.tokens, kr, d.heads * (d.hd + d.vd));
  w.memory_ops.push_back({"kv_norm_bwd", 4 * d.ln_tokens * kr * kActBytes});
  add_linear_backward(w, p, "kv_down_bwd", 1, d.ln_tokens, d.h, kr + m.rope_dim);
  if (qr > 0) {
    add_linear_backward(w, p, "q_up_bwd", 1, d.tokens, qr, d.heads * d.qk);
    w.memory_ops.push_back({"q_norm_bwd", 4 * d.ln_tokens * qr * kActBytes});
    add_linear_backward(w, p, "q_down_bwd", 1, d.ln_tokens, d.h, qr);
  } else {
    add_linear_backward(w, p, "q_proj_bwd", 1, d.tokens, d.h, d.heads * d.qk);
  }
}

} // namespace

LayerWork layer_forward(const TransformerShape& m, const LayerConfig& c) {
  const Dims d = dims_of(m, c);
  LayerWork w;
  const Precision p = c.precision;
  if (m.mtp_module) { // the two inputs' norms and their projection, column-parallel
    w.memory_ops.push_back({"mtp_norms", 2 * 2 * d.ln_tokens * d.h * kActBytes});
    add_linear(w, p, {"mtp_proj", 1, d.tokens, d.h / c.tp, 2 * d.h});
  }
  w.memory_ops.push_back({"norm1", 2 * d.ln_tokens * d.h * kActBytes});
  if (m.mla()) {
    add_latent_projections(w, m, d, p);
  } else {
    add_linear(w, p, {"qkv", 1, d.tokens, (d.heads + 2 * d.kv) * d.hd, d.h});
  }
  if (m.qk_norm) // reads and writes this rank's queries and keys
    w.memory_ops.push_back({"qk_norm", 2 * d.tokens * (d.heads + d.kv) * d.qk * kActBytes});
  add_attention_core(w, d, c.attention, false);
  add_linear(w, p, {"attn_proj", 1, d.tokens, d.h, d.heads * d.vd});
  w.memory_ops.push_back({"dropout_residual1", 4 * d.ln_tokens * d.h * kActBytes});
  w.memory_ops.push_back({"norm2", 2 * d.ln_tokens * d.h * kActBytes});
  if (m.moe()) {
    add_moe_forward(w, m, d, p);
  } else if (m.activation == Activation::gelu) {
    add_linear(w, p, {"fc1", 1, d.tokens, d.f, d.h});
    w.memory_ops.push_back({"gelu", 2 * d.tokens * d.f * kActBytes});
  } else {
    add_linear(w, p, {"fc1_gate_up", 1, d.tokens, 2 * d.f, d.h});
    w.memory_ops.push_back({"swiglu", 3 * d.tokens * d.f * kActBytes});
  }
  if (!m.moe())
    add_linear(w, p, {"fc2", 1, d.tokens, d.h, d.f});
  w.memory_ops.push_back({"dropout_residual2", 4 * d.ln_tokens * d.h * kActBytes});
  if (m.mtp_module) // its own final norm, the shared output head and the loss
    append(w, head_forward(m, c));
  return w;
}

LayerWork attention_core_forward(const TransformerShape& m, const LayerConfig& c) {
  LayerWork w;
  add_attention_core(w, dims_of(m, c), c.attention, false);
  return w;
}

LayerWork layer_backward(const TransformerShape& m, const LayerConfig& c) {
  const Dims d = dims_of(m, c);
  LayerWork w;
  const double fc1_cols = m.activation == Activation::gelu ? d.f : 2 * d.f;
  // Each linear layer Y = X W needs dX = dY W^T (data gradient) and dW = X^T dY (weight gradient).
  auto linear_bwd = [&](std::string_view name, double in_cols, double out_cols) {
    add_linear_backward(w, c.precision, name, 1, d.tokens, in_cols, out_cols);
  };
  if (m.mtp_module)
    append(w, head_backward(m, c));
  w.memory_ops.push_back({"dropout_residual2_bwd", 3 * d.ln_tokens * d.h * kActBytes});
  if (m.moe()) {
    add_moe_backward(w, m, d, c.precision);
  } else {
    linear_bwd("fc2_bwd", d.f, d.h);
    w.memory_ops.push_back({m.activation == Activation::gelu ? "gelu_bwd" : "swiglu_bwd",
                            (m.activation == Activation::gelu ? 3 : 5) * d.tokens * d.f * kActBytes});
    linear_bwd("fc1_bwd", d.h, fc1_cols);
  }
  w.memory_ops.push_back({"norm2_bwd", 4 * d.ln_tokens * d.h * kActBytes});
  w.memory_ops.push_back({"dropout_residual1_bwd", 3 * d.ln_tokens * d.h * kActBytes});
  linear_bwd("attn_proj_bwd", d.heads * d.vd, d.h);
  add_attention_core(w, d, c.attention, true);
  if (m.qk_norm)
    w.memory_ops.push_back({"qk_norm_bwd", 4 * d.tokens * (d.heads + d.kv) * d.qk * kActBytes});
  if (m.mla())
    add_latent_projections_backward(w, m, d, c.precision);
  else
    linear_bwd("qkv_bwd", d.h, (d.heads + 2 * d.kv) * d.hd);
  w.memory_ops.push_back({"norm1_bwd", 4 * d.ln_tokens * d.h * kActBytes});
  if (m.mtp_module) {
    linear_bwd("mtp_proj_bwd", 2 * d.h, d.h / c.tp);
    w.memory_ops.push_back({"mtp_norms_bwd", 2 * 4 * d.ln_tokens * d.h * kActBytes});
  }
  return w;
}

LayerWork head_forward(const TransformerShape& m, const LayerConfig& c) {
  const Dims d = dims_of(m, c);
  const double vocab_cols = static_cast<double>(m.vocab) / c.tp;
  LayerWork w;
  w.memory_ops.push_back({"final_norm", 2 * d.ln_tokens * d.h * kActBytes});
  w.gemms.push_back({"logits", 1, d.tokens, vocab_cols, d.h});
  // Megatron's vocabulary-parallel cross-entropy (MCORE-XENT), unfused (its default), one kernel
  // per pass over this rank's T x V/t logits: the 16-bit logits upcast to fp32, their maximum, the
  // in-place shift by it, the in-place exponential, its sum, and the in-place normalisation into the
  // softmax kept for the backward pass.
  const double logits = d.tokens * vocab_cols;
  w.memory_ops.push_back({"cross_entropy_upcast", logits * (kActBytes + 4.0)});
  w.memory_ops.push_back({"cross_entropy_max", logits * 4.0});
  w.memory_ops.push_back({"cross_entropy_shift", logits * 8.0});
  w.memory_ops.push_back({"cross_entropy_exp", logits * 8.0});
  w.memory_ops.push_back({"cross_entropy_sum", logits * 4.0});
  w.memory_ops.push_back({"cross_entropy_normalise", logits * 8.0});
  return w;
}

LayerWork head_backward(const TransformerShape& m, const LayerConfig& c) {
  const Dims d = dims_of(m, c);
  const double vocab_cols = static_cast<double>(m.vocab) / c.tp;
  LayerWork w;
  // MCORE-XENT's backward scales the kept fp32 softmax in place by the loss gradient; autograd then
  // casts it back to 16 bits for the output layer's GEMMs.
  const double logits = d.tokens * vocab_cols;
  w.memory_ops.push_back({"cross_entropy_grad", logits * 8.0});
  w.memory_ops.push_back({"cross_entropy_grad_downcast", logits * (4.0 + kActBytes)});
  w.gemms.push_back({"logits_dgrad", 1, d.tokens, d.h, vocab_cols});
  w.gemms.push_back({"logits_wgrad", 1, vocab_cols, d.h, d.tokens});
  w.memory_ops.push_back({"final_norm_bwd", 4 * d.ln_tokens * d.h * kActBytes});
  return w;
}

double ep_dispatch_bytes(const TransformerShape& m, const LayerConfig& c) {
  return m.moe()
             ? static_cast<double>(c.micro_batch) * c.seq_len / c.cp / c.tp * m.top_k * m.hidden * kActBytes
             : 0.0;
}

double cp_kv_bytes(const TransformerShape& m, const LayerConfig& c) {
  const double kv = std::max(1.0, static_cast<double>(m.kv_heads) / c.tp);
  return static_cast<double>(c.micro_batch) * c.seq_len * kv * (m.qk_dim() + m.v_dim()) * kActBytes;
}

double tp_activation_bytes(const TransformerShape& m, const LayerConfig& c, double element_bytes) {
  return static_cast<double>(c.micro_batch) * c.seq_len / c.cp * m.hidden * element_bytes;
}

} // namespace dpusim::workload
