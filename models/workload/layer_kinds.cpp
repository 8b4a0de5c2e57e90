#include "models/workload/layer_kinds.hpp"

namespace dpusim::workload {

std::vector<int> chunk_layer_kinds(const TransformerShape& m, const Parallelism& p, int chunks, int vs) {
  const int first = chunk_first_layer(p, m.layers, chunks, vs);
  const int count = chunk_layers(p, m.layers, chunks, vs);
  std::vector<int> kinds;
  kinds.reserve(static_cast<std::size_t>(count));
  for (int l = first; l < first + count; ++l)
    kinds.push_back(m.layer_kind(l));
  if (vs == p.pp * chunks - 1)
    for (int k = 0; k < m.mtp_layers; ++k)
      kinds.push_back(m.layer_kind(m.layers + k) | TransformerShape::kMtpModule);
  return kinds;
}

} // namespace dpusim::workload
