// Shape of a dense decoder-only transformer and the quantities derived from it: parameter count and
// the GEMM / memory-bound operations of one layer, per tensor-parallel rank.
#pragma once

#include "models/workload/precision.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::workload {

enum class Activation { gelu, swiglu };

std::string_view activation_name(Activation a);

struct TransformerShape {
  std::string name;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0; // == heads for multi-head attention
  // Each head's width where it is not hidden / heads (Qwen3: 64 heads of 128 on a hidden size of 4096):
  // the queries are heads x head_dim wide, and so is the output projection's input. 0: hidden / heads.
  int head_width = 0;
  int ffn = 0; // feed-forward inner size
  int vocab = 0;
  Activation activation = Activation::gelu;
  bool tied_embeddings = true;
  bool learned_positions = true; // GPT-style learned position embeddings (vs rotary)
  bool biases = true;            // linear layers carry biases (GPT); Llama has none
  bool dropout = true; // trained with dropout, whose masks are kept for backward (GPT); Llama has none
  // Mixture of experts (every layer's feed-forward block): `experts` expert FFNs of size `expert_ffn`,
  // each token routed to `top_k` of them by a learned router. 0 experts: a dense model.
  int experts = 0;
  int top_k = 1;
  int expert_ffn = 0;
  // Shared experts (Qwen2-MoE, DeepSeek): FFNs of expert_ffn each that every token goes through beside its
  // routed ones. They are dense: split over the tensor-parallel ranks, held whole by every expert-parallel
  // rank, no all-to-all; 0: none.
  int shared_experts = 0;
  // A mixture of experts' first layers with a dense FFN of `ffn` instead of experts (DeepSeek-V3: 3).
  int dense_layers = 0;
  // After them, only every moe_every-th layer has experts, the others a dense FFN of `ffn` (Llama 4
  // Maverick: 2, the odd layers).
  int moe_every = 1;
  // Sliding-window attention (GPT-OSS): each query attends to the last sliding_window keys only, in every
  // layer but each full_attention_every-th (0: in every layer). 0 sliding_window: full attention.
  int sliding_window = 0;
  // Chunked attention (Llama 4, LLAMA4-MAVERICK-CONFIG's attention_chunk_size): the sequence is cut into
  // chunks of attention_chunk tokens and each query attends to the keys of its own chunk, causally, in
  // every layer but each full_attention_every-th. Counted as full attention over a sequence of one
  // chunk: a flash kernel's products meet min(chunk, sequence) keys a query. 0: none.
  int attention_chunk = 0;
  int full_attention_every = 0;
  // Attention sinks (GPT-OSS): a learned logit per head added to each softmax's denominator.
  bool attention_sinks = false;
  // An RMSNorm over each head's queries and keys before attention (Qwen3's QK-Norm, QWEN3-TR).
  bool qk_norm = false;
  // Multi-token prediction modules (DeepSeek-V3: 1, DSV3-TR section 2.2), after the last layer: each
  // normalises the previous module's hidden states and the next token's embedding, projects the two
  // (2h -> h), runs one more transformer layer (of the kind the layer after the model's last would have)
  // and the shared output head and loss.
  int mtp_layers = 0;
  // Of a layer shape (layer_shape): the layer is such a module.
  bool mtp_module = false;
  // Multi-head latent attention (DeepSeek-V2/V3, DSV2, DSV3): keys and values compressed to a latent of
  // kv_lora_rank (with a shared rotary key of rope_dim) and expanded per head again, queries likewise
  // through q_lora_rank (0: projected directly). Each head's keys and queries are head_dim (no rotary
  // part) + rope_dim wide, its values v_head_dim. 0 kv_lora_rank: standard attention.
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int rope_dim = 0;
  int v_head_dim = 0;

  [[nodiscard]] int head_dim() const { return head_width > 0 ? head_width : hidden / heads; }
  [[nodiscard]] bool mla() const { return kv_lora_rank > 0; }
  /// Width of each head's queries and keys (the scores' inner dimension).
  [[nodiscard]] int qk_dim() const { return head_dim() + (mla() ? rope_dim : 0); }
  /// Width of each head's values (and of its share of the output projection's input).
  [[nodiscard]] int v_dim() const { return mla() && v_head_dim > 0 ? v_head_dim : head_dim(); }
  /// The queries' width (heads x head_dim): the hidden size unless head_dim is its own.
  [[nodiscard]] double attention_width() const { return static_cast<double>(heads) * head_dim(); }
  [[nodiscard]] bool moe() const { return experts > 0; }
  /// Whether layer `l` (0-based, in model order) has a dense FFN: every layer of a dense model; of a
  /// mixture of experts, its first `dense_layers` and, after them, all but every moe_every-th.
  [[nodiscard]] bool dense_layer(int l) const {
    return !moe() || l < dense_layers || l % moe_every != moe_every - 1;
  }
  /// Whether layer `l` attends locally: through a sliding window or within its chunk.
  [[nodiscard]] bool sliding_layer(int l) const {
    return (sliding_window > 0 || attention_chunk > 0) &&
           (full_attention_every == 0 || l % full_attention_every != full_attention_every - 1);
  }
  /// Layer `l`'s kind: kDenseFfn and kSlidingAttention bits (0: experts, full attention).
  [[nodiscard]] int layer_kind(int l) const {
    return (moe() && dense_layer(l) ? kDenseFfn : 0) | (sliding_layer(l) ? kSlidingAttention : 0);
  }
  static constexpr int kDenseFfn = 1;         // a mixture of experts' layer with a dense FFN of ffn
  static constexpr int kSlidingAttention = 2; // a layer attending through the sliding window or a chunk
  static constexpr int kMtpModule = 4;        // a multi-token prediction module's layer
  static constexpr int kLayerKinds = 8;
};

/// The shape every layer of kind `kind` (TransformerShape::layer_kind) has, as a model of such layers
/// only: a dense FFN of `ffn` in place of the experts, or full attention in place of the window.
TransformerShape layer_shape(const TransformerShape& m, int kind);
/// The kind of every layer in model order, then of each multi-token prediction module (its layer's kind
/// with kMtpModule): the one list of the model's layers that the counts and the chunks read.
std::vector<int> layer_kinds(const TransformerShape& m);

/// Total trainable parameters (embeddings included once when tied).
double parameter_count(const TransformerShape& m, int seq_len);
/// Parameters a token goes through: a mixture of experts' routed experts counted top_k times, not all.
double active_parameter_count(const TransformerShape& m, int seq_len);
/// Parameters of one transformer layer; with experts sharded over `ep` expert-parallel ranks, the share
/// one rank holds (the dense part whole, 1/ep of the experts). Of a model whose layers differ, a layer of
/// kind 0 (with experts, full attention); the others' are layer_shape(m, kind)'s.
double layer_parameter_count(const TransformerShape& m, int ep = 1);
/// Projection weight matrices of one layer that one expert-parallel rank holds: attention's fused QKV and
/// output projections, then the feed-forward's fused up (and gate) and down projections, per local
/// expert for a mixture of experts. Biases, norms and the router are small tensors and not counted.
int layer_weight_matrices(const TransformerShape& m, int ep = 1);
/// Embedding tables: tokens, learned positions, and the output head when untied.
int embedding_weight_matrices(const TransformerShape& m);
/// Of which the experts' (0 for a dense model).
double expert_parameter_count(const TransformerShape& m, int ep = 1);
/// Parameters outside the layers: token (+ position) embeddings, output head when untied, final norm.
double embedding_parameter_count(const TransformerShape& m, int seq_len);

/// Megatron-LM SC'21 Eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)), for cross-checking.
double megatron_eq2_parameters(int layers, int hidden, int vocab, int seq_len);
/// Megatron-LM SC'21 Eq. 3: F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)); counts full recomputation.
double megatron_eq3_flops(double batch, int seq_len, int layers, int hidden, int vocab);

/// One GEMM: `batch` independent (m x k) * (k x n) products. `linear`: a product of a linear layer's
/// weights (projections, feed-forward, experts), which runs in the job's low-precision format; the
/// others (attention's products, router, output layer) stay in 16 bits.
struct Gemm {
  std::string_view name;
  double batch = 1;
  double m = 0;
  double n = 0;
  double k = 0;
  bool linear = false;
  [[nodiscard]] double flops() const { return 2.0 * batch * m * n * k; }
};

/// A memory-bound kernel characterised by the bytes it moves to and from HBM.
struct MemoryOp {
  std::string_view name;
  double bytes = 0;
};

enum class AttentionKernel { unfused, flash };

/// Forward (or backward) work of one transformer layer on one tensor-parallel rank for one micro-batch.
struct LayerWork {
  std::vector<Gemm> gemms;
  std::vector<MemoryOp> memory_ops;
  [[nodiscard]] double flops() const;
  [[nodiscard]] int kernels() const { return static_cast<int>(gemms.size() + memory_ops.size()); }
};

struct LayerConfig {
  int micro_batch = 1;
  int seq_len = 0;
  int tp = 1;
  int ep = 1; // expert-parallel ranks (MoE): each holds experts / ep experts
  int cp = 1; // context-parallel ranks: each holds seq_len / cp of every sequence's tokens
  // The routed token copies this rank's experts process, over a balanced rank's (ep x its share of the
  // group's; expert_routing.hpp): 1 under balanced routing.
  double expert_load = 1;
  bool sequence_parallel = false;
  AttentionKernel attention = AttentionKernel::unfused;
  Precision precision = Precision::bf16; // of the linear layers: their GEMMs and the casts they need
};

LayerWork layer_forward(const TransformerShape& m, const LayerConfig& c);
/// Only the attention core (scores, softmax, weighted values): what selective recomputation repeats.
LayerWork attention_core_forward(const TransformerShape& m, const LayerConfig& c);
/// The kernels of a layer's pass that belong to its feed-forward part: the routed and shared experts or
/// the dense MLP (projections and activation), forward or backward; what a mixture of experts runs
/// between its dispatch and its combine. The rest (norms, attention, router, the tokens' permutation,
/// residuals) runs before the dispatch or after the combine.
LayerWork mlp_part(const LayerWork& pass);
LayerWork layer_backward(const TransformerShape& m, const LayerConfig& c);
/// Final norm, output head (vocabulary-parallel) and loss, forward and backward.
LayerWork head_forward(const TransformerShape& m, const LayerConfig& c);
LayerWork head_backward(const TransformerShape& m, const LayerConfig& c);

/// Bytes of one tensor-parallel activation collective (all-reduce of a micro-batch's hidden states).
/// Bytes one rank sends in one expert-parallel all-to-all (dispatch or combine) of a micro-batch: its
/// share of the tokens (1/tp of them), each sent to top_k experts, in 16-bit activations.
double ep_dispatch_bytes(const TransformerShape& m, const LayerConfig& c);

/// Bytes of keys and values one context-parallel rank gathers from the others for one layer and
/// micro-batch: the whole sequence's K and V for its tensor-parallel share of the kv heads, 16-bit
/// (under latent attention each head's keys and values as expanded: qk_dim + v_dim wide).
double cp_kv_bytes(const TransformerShape& m, const LayerConfig& c);

double tp_activation_bytes(const TransformerShape& m, const LayerConfig& c, double element_bytes);

} // namespace dpusim::workload
