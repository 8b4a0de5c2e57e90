#include "models/workload/expert_routing.hpp"

#include "models/base/seed_mix.hpp"
#include "models/workload/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

namespace dpusim::workload {

namespace {

/// A permutation of 0..n-1 drawn from `seed` (Fisher-Yates over the generator's raw outputs, so that
/// it is the same on every standard library).
std::vector<int> permutation(int n, std::uint64_t seed) {
  std::vector<int> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::mt19937_64 rng(seed);
  for (int i = n - 1; i > 0; --i)
    std::swap(p[static_cast<std::size_t>(i)],
              p[static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(i + 1))]);
  return p;
}

/// The layer's own stream.
std::uint64_t layer_seed(std::uint64_t seed, int layer) {
  return mix(seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(layer));
}

} // namespace

std::vector<double> expert_shares(const ExpertRouting& r, int experts, int layer) {
  if (experts < 1)
    throw std::invalid_argument("expert_shares: no experts");
  std::vector<double> s(static_cast<std::size_t>(experts), 1.0);
  switch (r.load) {
  case ExpertRouting::Load::balanced:
    break;
  case ExpertRouting::Load::zipf: {
    const auto rank = permutation(experts, layer_seed(r.seed, layer));
    for (int e = 0; e < experts; ++e)
      s[static_cast<std::size_t>(e)] = std::pow(rank[static_cast<std::size_t>(e)] + 1.0, -r.zipf_exponent);
    break;
  }
  case ExpertRouting::Load::measured:
    if (r.expert_load.size() != s.size())
      throw std::invalid_argument("expert_shares: the measured load does not list every expert");
    s = r.expert_load;
    break;
  }
  const double sum = std::accumulate(s.begin(), s.end(), 0.0);
  if (!(sum > 0))
    throw std::invalid_argument("expert_shares: no expert receives any token");
  for (auto& x : s)
    x /= sum;
  return s;
}

GroupLoad group_load(const std::vector<double>& shares, int ep, std::optional<double> capacity_factor) {
  const int experts = static_cast<int>(shares.size());
  if (ep < 1 || experts % ep != 0)
    throw std::invalid_argument("group_load: ep must divide the experts");
  const double cap = capacity_factor ? *capacity_factor / experts : 1.0;
  GroupLoad g;
  g.rank_shares.assign(static_cast<std::size_t>(ep), 0.0);
  const int per_rank = experts / ep;
  for (int e = 0; e < experts; ++e) {
    const double sent = shares[static_cast<std::size_t>(e)];
    const double kept = std::min(sent, cap);
    g.dropped += sent - kept;
    g.rank_shares[static_cast<std::size_t>(e / per_rank)] += kept;
  }
  g.max_load = *std::max_element(g.rank_shares.begin(), g.rank_shares.end()) * ep;
  return g;
}

RoutingSummary summarize_routing(const TransformerShape& m, const ExpertRouting& r, int ep) {
  RoutingSummary out;
  std::vector<std::pair<int, GroupLoad>> loads;
  const auto kinds = layer_kinds(m);
  for (std::size_t l = 0; l < kinds.size(); ++l)
    if (layer_shape(m, kinds[l]).moe())
      loads.emplace_back(static_cast<int>(l),
                         group_load(expert_shares(r, m.experts, static_cast<int>(l)), ep, r.capacity_factor));
  if (loads.empty())
    return out;
  const auto n = static_cast<double>(loads.size());
  out.expert_layers = static_cast<int>(loads.size());
  out.mean_max_load = 0;
  out.worst_max_load = 0;
  for (const auto& [l, g] : loads) {
    out.mean_max_load += g.max_load / n;
    out.worst_max_load = std::max(out.worst_max_load, g.max_load);
    out.mean_dropped += g.dropped / n;
  }
  double nearest = std::numeric_limits<double>::infinity();
  for (const auto& [l, g] : loads)
    if (const double d = std::abs(g.max_load - out.mean_max_load); d < nearest) {
      nearest = d;
      out.representative = l;
      out.representative_shares = g.rank_shares;
    }
  return out;
}

} // namespace dpusim::workload
