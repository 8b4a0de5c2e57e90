#include "models/workload/transformer_reader.hpp"

#include <fmt/format.h>

namespace dpusim::workload {

TransformerShape read_transformer_shape(yaml::Map& map, std::string name) {
  TransformerShape m;
  m.name = std::move(name);
  m.layers = static_cast<int>(map.required("layers", "the number of transformer layers").as_int(1, 100000));
  const auto hidden = map.required("hidden", "the hidden size");
  m.hidden = static_cast<int>(hidden.as_int(1, 1 << 24));
  const auto heads = map.required("heads", "the number of attention heads");
  m.heads = static_cast<int>(heads.as_int(1, 1 << 16));
  m.vocab = static_cast<int>(map.required("vocab", "the vocabulary size").as_int(1, 1 << 26));
  m.kv_heads = m.heads;
  if (auto kv = map.optional("kv_heads")) {
    m.kv_heads = static_cast<int>(kv->as_int(1, m.heads));
    if (m.heads % m.kv_heads != 0)
      kv->fail(fmt::format("must divide the number of heads ({}), found {}", m.heads, m.kv_heads));
  }
  if (auto hd = map.optional("head_dim")) {
    m.head_width = static_cast<int>(hd->as_int(1, 1 << 16));
  } else if (m.hidden % m.heads != 0) {
    hidden.fail(
        fmt::format("must be a multiple of heads ({}) unless head_dim gives each head's width, found {}",
                    m.heads, m.hidden));
  }
  m.activation = Activation::gelu;
  if (auto a = map.optional("activation"))
    m.activation = a->as_choice({"gelu", "swiglu"}) == "gelu" ? Activation::gelu : Activation::swiglu;
  m.ffn = 4 * m.hidden;
  if (auto f = map.optional("ffn"))
    m.ffn = static_cast<int>(f->as_int(1, 1 << 26));
  else if (m.activation == Activation::swiglu)
    map.required("ffn", "the feed-forward size (no default for swiglu models)");
  if (auto t = map.optional("tied_embeddings"))
    m.tied_embeddings = t->as_bool();
  if (auto p = map.optional("position_embeddings"))
    m.learned_positions = p->as_choice({"learned", "rotary"}) == "learned";
  if (auto b = map.optional("biases"))
    m.biases = b->as_bool();
  if (auto d = map.optional("dropout"))
    m.dropout = d->as_bool();
  if (auto e = map.optional("experts")) {
    m.experts = static_cast<int>(e->as_int(1, 1 << 16));
    m.top_k = static_cast<int>(
        map.required("top_k", "experts each token is routed to, e.g. 2").as_int(1, m.experts));
    m.expert_ffn =
        static_cast<int>(map.required("expert_ffn", "each expert's feed-forward size").as_int(1, 1 << 26));
    if (auto sh = map.optional("shared_experts"))
      m.shared_experts = static_cast<int>(sh->as_int(0, 1 << 10));
    if (auto dl = map.optional("dense_layers")) // their feed-forward size is ffn
      m.dense_layers = static_cast<int>(dl->as_int(0, m.layers - 1));
    if (auto every = map.optional("moe_every")) // the other layers' feed-forward size is ffn
      m.moe_every = static_cast<int>(every->as_int(1, m.layers - m.dense_layers));
  } else {
    for (const char* key : {"top_k", "expert_ffn", "shared_experts", "dense_layers", "moe_every"})
      if (auto k = map.optional(key))
        k->fail("only a mixture-of-experts model has it: give experts too");
  }
  const auto window = map.optional("sliding_window");
  const auto chunk = map.optional("attention_chunk");
  if (window && chunk)
    chunk->fail("a layer attends through a sliding window or within a chunk, not both: give one");
  if (window)
    m.sliding_window = static_cast<int>(window->as_int(1, 1 << 24));
  if (chunk)
    m.attention_chunk = static_cast<int>(chunk->as_int(1, 1 << 24));
  if (auto every = map.optional("full_attention_every")) {
    if (!window && !chunk)
      every->fail(
          "only sliding-window or chunked attention has it: give sliding_window or attention_chunk too");
    m.full_attention_every = static_cast<int>(every->as_int(0, m.layers));
  }
  if (auto sinks = map.optional("attention_sinks"))
    m.attention_sinks = sinks->as_bool();
  if (auto norm = map.optional("qk_norm"))
    m.qk_norm = norm->as_bool();
  if (auto mtp = map.optional("mtp_layers"))
    m.mtp_layers = static_cast<int>(mtp->as_int(0, 64));
  if (auto kr = map.optional("kv_lora_rank")) {
    m.kv_lora_rank = static_cast<int>(kr->as_int(1, 1 << 20));
    m.rope_dim = static_cast<int>(map.required("qk_rope_head_dim",
                                               "each head's rotary part of its queries and keys under latent "
                                               "attention, e.g. 64 (0: none)")
                                      .as_int(0, 1 << 16));
    if (auto q = map.optional("q_lora_rank"))
      m.q_lora_rank = static_cast<int>(q->as_int(0, 1 << 20));
    if (auto v = map.optional("v_head_dim"))
      m.v_head_dim = static_cast<int>(v->as_int(1, 1 << 16));
    if (auto kv = map.optional("kv_heads"); kv && m.kv_heads != m.heads)
      kv->fail(fmt::format("latent attention expands keys and values for every one of the {} heads: "
                           "remove kv_heads or set it to {}",
                           m.heads, m.heads));
  } else {
    for (const char* key : {"q_lora_rank", "qk_rope_head_dim", "v_head_dim"})
      if (auto k = map.optional(key))
        k->fail("only multi-head latent attention has it: give kv_lora_rank too");
  }
  return m;
}

} // namespace dpusim::workload
