#include "models/workload/parallelism.hpp"

namespace dpusim::workload {

int rank_of(const Parallelism& p, RankCoord c) {
  return c.tp + p.tp * (c.cp + p.cp * (c.dp + p.dp * c.pp));
}

RankCoord coord_of(const Parallelism& p, int rank) {
  RankCoord c;
  c.tp = rank % p.tp;
  c.cp = (rank / p.tp) % p.cp;
  c.dp = (rank / (p.tp * p.cp)) % p.dp;
  c.pp = rank / (p.tp * p.cp * p.dp);
  return c;
}

std::vector<int> tp_group(const Parallelism& p, int dp, int pp, int cp) {
  std::vector<int> out;
  for (int t = 0; t < p.tp; ++t)
    out.push_back(rank_of(p, {t, dp, pp, cp}));
  return out;
}

std::vector<int> replica_group(const Parallelism& p, int dp, int pp) {
  std::vector<int> out;
  for (int c = 0; c < p.cp; ++c)
    for (int t = 0; t < p.tp; ++t)
      out.push_back(rank_of(p, {t, dp, pp, c}));
  return out;
}

std::vector<int> cp_group(const Parallelism& p, int tp, int dp, int pp) {
  std::vector<int> out;
  for (int c = 0; c < p.cp; ++c)
    out.push_back(rank_of(p, {tp, dp, pp, c}));
  return out;
}

std::vector<int> gradient_group(const Parallelism& p, int tp, int pp) {
  std::vector<int> out;
  for (int d = 0; d < p.dp; ++d)
    for (int c = 0; c < p.cp; ++c)
      out.push_back(rank_of(p, {tp, d, pp, c}));
  return out;
}

std::vector<int> dp_group(const Parallelism& p, int tp, int pp) {
  std::vector<int> out;
  for (int d = 0; d < p.dp; ++d)
    out.push_back(rank_of(p, {tp, d, pp}));
  return out;
}

std::vector<int> ep_group(const Parallelism& p, int tp, int dp, int pp) {
  std::vector<int> out;
  const int first = dp / p.ep * p.ep;
  for (int d = first; d < first + p.ep; ++d)
    out.push_back(rank_of(p, {tp, d, pp}));
  return out;
}

int stage_layers(const Parallelism& p, int layers, int stage) {
  if (p.pp == 1)
    return layers;
  const int first = p.first_stage_layers;
  const int last = p.last_stage_layers;
  if (first == 0 && last == 0)
    return layers / p.pp;
  // The stages given no count share what the others leave.
  const int fixed = (first > 0 ? 1 : 0) + (last > 0 ? 1 : 0);
  const int rest = p.pp - fixed;
  const int each = rest > 0 ? (layers - first - last) / rest : 0;
  if (stage == 0 && first > 0)
    return first;
  if (stage == p.pp - 1 && last > 0)
    return last;
  return each;
}

int virtual_stage_of(const Parallelism& p, int chunks, int stage, int chunk) {
  if (p.v_shape && chunks == 2 && chunk == 1)
    return 2 * p.pp - 1 - stage;
  return chunk * p.pp + stage;
}

int stage_of_virtual(const Parallelism& p, int chunks, int vs) {
  if (p.v_shape && chunks == 2 && vs >= p.pp)
    return 2 * p.pp - 1 - vs;
  return vs % p.pp;
}

int chunk_of_virtual(const Parallelism& p, int /*chunks*/, int vs) {
  return vs / p.pp;
}

int chunk_layers(const Parallelism& p, int layers, int chunks, int vs) {
  const int stage = stage_of_virtual(p, chunks, vs);
  const int chunk = chunk_of_virtual(p, chunks, vs);
  const int total = stage_layers(p, layers, stage);
  return total / chunks + (chunk < total % chunks ? 1 : 0);
}

int chunk_first_layer(const Parallelism& p, int layers, int chunks, int vs) {
  int first = 0;
  for (int u = 0; u < vs; ++u)
    first += chunk_layers(p, layers, chunks, u);
  return first;
}

} // namespace dpusim::workload
