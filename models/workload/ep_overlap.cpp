#include "models/workload/ep_overlap.hpp"

#include <algorithm>

namespace dpusim::workload {
namespace {

double layer_alone_s(const LayerPass& l, double a2a_s) {
  return l.recompute_s + (l.recompute_exchanges ? 2 * a2a_s : 0.0) + l.pre_s + l.mlp_s +
         (l.exchanges ? 2 * a2a_s : 0.0);
}

} // namespace

double beside_s(double compute_s, double comm_s, double sm_share) {
  return std::max(comm_s, compute_s + sm_share * comm_s);
}

double alone_s(const ChunkPass& pass, double a2a_s) {
  double t = pass.before_s + pass.after_s;
  for (const auto& l : pass.layers)
    t += layer_alone_s(l, a2a_s);
  return t;
}

double combined_step_s(const ChunkPass& fwd, const ChunkPass& bwd, double a2a_s, double sm_share) {
  double t = fwd.before_s + fwd.after_s + bwd.before_s + bwd.after_s;
  const auto paired = std::min(fwd.layers.size(), bwd.layers.size());
  for (std::size_t i = 0; i < paired; ++i) {
    const auto& f = fwd.layers[i];
    const auto& b = bwd.layers[i];
    const double f_a2a = f.exchanges ? a2a_s : 0.0;
    const double b_a2a = b.exchanges ? a2a_s : 0.0;
    t += b.recompute_s + (b.recompute_exchanges ? 2 * a2a_s : 0.0); // the backward's recomputation first
    t += beside_s(f.pre_s, b_a2a, sm_share);                        // | backward combine
    t += beside_s(b.mlp_s, f_a2a, sm_share);                        // | forward dispatch
    t += beside_s(f.mlp_s, b_a2a, sm_share);                        // | backward dispatch
    t += beside_s(b.pre_s, f_a2a, sm_share);                        // | forward combine
  }
  for (std::size_t i = paired; i < fwd.layers.size(); ++i)
    t += layer_alone_s(fwd.layers[i], a2a_s);
  for (std::size_t i = paired; i < bwd.layers.size(); ++i)
    t += layer_alone_s(bwd.layers[i], a2a_s);
  return t;
}

} // namespace dpusim::workload
