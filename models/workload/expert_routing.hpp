// How a mixture of experts' router spreads a layer's token copies over its experts (workload.routing):
// balanced, as benchmark tables force it, or imbalanced from a Zipf law or a measured expert-load
// histogram; dropless, or with a capacity factor beyond which an expert drops the tokens it is sent.
// Pure arithmetic: what each expert-parallel rank processes. See docs/models/workload.md, "Routing and
// expert load".
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace dpusim::workload {

struct ExpertRouting {
  enum class Load { balanced, zipf, measured };
  Load load = Load::balanced;
  // Zipf: the expert of popularity rank i (1-based) receives a share proportional to 1 / i^s. Which
  // expert has which rank is drawn for every layer from `seed` (a property of the trained model, fixed
  // for the job).
  double zipf_exponent = 0;
  std::uint64_t seed = 1;
  // Measured: one figure per expert, in expert order (any scale: tokens, shares), the same in every
  // expert layer.
  std::vector<double> expert_load;
  // Tokens an expert takes per micro-batch, as a multiple of a balanced expert's (Megatron-Core's
  // --moe-expert-capacity-factor, without padding): copies beyond it are dropped. None: dropless.
  std::optional<double> capacity_factor;
  // Nodes a token may reach (DeepSeek-V3: 4, DSV3-TR section 2.1.2): bounds a per-node dispatch's RDMA
  // bytes (collectives::expert_dispatch). 0: any.
  int node_limit = 0;

  /// Whether some expert-parallel rank can process more than a balanced one, or tokens can be dropped.
  [[nodiscard]] bool uneven() const { return load != Load::balanced || capacity_factor.has_value(); }
};

/// The share of layer `layer`'s routed token copies each of `experts` experts is sent (they sum to 1).
std::vector<double> expert_shares(const ExpertRouting& r, int experts, int layer);

/// What the experts of one expert-parallel group process in one layer.
struct GroupLoad {
  // Per rank (experts / ep consecutive experts each): the share of the group's routed token copies it
  // processes, after drops. They sum to 1 - dropped.
  std::vector<double> rank_shares;
  double dropped = 0;  // share of the routed copies dropped at the experts' capacity
  double max_load = 1; // the busiest rank's copies over a balanced rank's (ep x its share)
};

/// The load of `ep` ranks holding the experts whose shares are `shares`, each expert taking at most
/// `capacity_factor` times a balanced expert's copies (none: all it is sent).
GroupLoad group_load(const std::vector<double>& shares, int ep, std::optional<double> capacity_factor);

struct TransformerShape;

/// Over a model's expert layers (multi-token prediction modules included) with `ep` expert-parallel
/// ranks: how loaded their busiest ranks are and how many token copies are dropped.
struct RoutingSummary {
  int expert_layers = 0;
  double mean_max_load = 1;  // mean over the layers of GroupLoad::max_load
  double worst_max_load = 1; // the highest of them
  double mean_dropped = 0;   // mean over the layers of GroupLoad::dropped
  int representative = -1;   // the layer (model order) whose max_load is nearest the mean (the first)
  std::vector<double> representative_shares; // its GroupLoad::rank_shares
};
RoutingSummary summarize_routing(const TransformerShape& m, const ExpertRouting& r, int ep);

} // namespace dpusim::workload
