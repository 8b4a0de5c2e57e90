#include "models/workload/layer_kinds.hpp"

namespace dpusim::workload {

std::vector<int> chunk_layer_kinds(const TransformerShape& m, const Parallelism& p, int chunks, int vs) {
  const auto all = layer_kinds(m);
  const auto first = all.begin() + chunk_first_layer(p, m.layers, chunks, vs);
  // The last virtual stage ends with the modules after the model's layers.
  const auto end = vs == p.pp * chunks - 1 ? all.end() : first + chunk_layers(p, m.layers, chunks, vs);
  return {first, end};
}

} // namespace dpusim::workload
