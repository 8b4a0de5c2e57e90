// A mixture of experts' routing (models/workload/expert_routing.hpp): the experts' shares under balanced,
// Zipf and measured loads, the ranks' loads and the copies a capacity factor drops.
#include "models/workload/expert_routing.hpp"
#include "models/workload/transformer.hpp"
#include "tests/models/workload/model_shapes.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <set>

using namespace dpusim::workload;

namespace {

ExpertRouting zipf(double s, std::uint64_t seed = 1) {
  ExpertRouting r;
  r.load = ExpertRouting::Load::zipf;
  r.zipf_exponent = s;
  r.seed = seed;
  return r;
}

ExpertRouting measured(std::vector<double> load) {
  ExpertRouting r;
  r.load = ExpertRouting::Load::measured;
  r.expert_load = std::move(load);
  return r;
}

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

} // namespace

TEST(ExpertRouting, BalancedGivesEveryExpertAndRankTheSame) {
  const auto shares = expert_shares(ExpertRouting{}, 256, 0);
  ASSERT_EQ(shares.size(), 256U);
  for (double s : shares)
    EXPECT_DOUBLE_EQ(s, 1.0 / 256);
  const auto g = group_load(shares, 64, std::nullopt);
  EXPECT_NEAR(g.max_load, 1.0, 1e-12);
  EXPECT_EQ(g.dropped, 0.0);
  EXPECT_FALSE(ExpertRouting{}.uneven());
}

TEST(ExpertRouting, ZipfSharesAreTheLawOverADrawnPermutation) {
  // Sorted, the shares are 1/i^s over the harmonic number H(E, s), whichever expert has which rank.
  const int experts = 128;
  const double s = 1.2;
  const auto shares = expert_shares(zipf(s), experts, 7);
  EXPECT_NEAR(sum(shares), 1.0, 1e-12);
  auto sorted = shares;
  std::sort(sorted.rbegin(), sorted.rend());
  double h = 0;
  for (int i = 1; i <= experts; ++i)
    h += std::pow(i, -s);
  for (int i = 1; i <= experts; ++i)
    EXPECT_NEAR(sorted[static_cast<std::size_t>(i - 1)], std::pow(i, -s) / h, 1e-12) << i;
  // The most popular expert differs between layers and is the same for the same seed and layer.
  std::set<long> most_popular;
  for (int layer = 0; layer < 16; ++layer) {
    const auto l = expert_shares(zipf(s), experts, layer);
    most_popular.insert(std::max_element(l.begin(), l.end()) - l.begin());
    EXPECT_EQ(l, expert_shares(zipf(s), experts, layer));
  }
  EXPECT_GT(most_popular.size(), 8U);
  EXPECT_NE(expert_shares(zipf(s, 2), experts, 7), shares);
  // Exponent 0 is balanced.
  for (double x : expert_shares(zipf(0), experts, 3))
    EXPECT_DOUBLE_EQ(x, 1.0 / experts);
}

TEST(ExpertRouting, RanksAddTheirExpertsSharesAndTheBusiestSetsTheLoad) {
  // Four experts on two ranks, loads 3:1:1:1: rank 0 gets 4/6 of the copies, 4/3 of a balanced rank's.
  const auto shares = expert_shares(measured({3, 1, 1, 1}), 4, 0);
  EXPECT_DOUBLE_EQ(shares[0], 0.5);
  const auto g = group_load(shares, 2, std::nullopt);
  EXPECT_DOUBLE_EQ(g.rank_shares[0], 4.0 / 6);
  EXPECT_DOUBLE_EQ(g.rank_shares[1], 2.0 / 6);
  EXPECT_DOUBLE_EQ(g.max_load, 4.0 / 3);
  // One rank holds every expert: it processes every copy, however uneven.
  EXPECT_DOUBLE_EQ(group_load(shares, 1, std::nullopt).max_load, 1.0);
}

TEST(ExpertRouting, ACapacityFactorDropsWhatIsBeyondItAndConservesTheRest) {
  // Capacity 1 x a balanced expert's (1/4): the first expert keeps 1/4 of its 1/2.
  const auto shares = expert_shares(measured({3, 1, 1, 1}), 4, 0);
  const auto g = group_load(shares, 2, 1.0);
  EXPECT_DOUBLE_EQ(g.dropped, 0.25);
  EXPECT_DOUBLE_EQ(g.rank_shares[0], 0.25 + 1.0 / 6);
  EXPECT_NEAR(sum(g.rank_shares) + g.dropped, 1.0, 1e-12);
  // A factor no expert reaches drops nothing; a lower one drops more (monotone).
  EXPECT_EQ(group_load(shares, 2, 2.0).dropped, 0.0);
  double previous = 0;
  for (double f : {1.5, 1.25, 1.0, 0.75, 0.5}) {
    const double d = group_load(shares, 2, f).dropped;
    EXPECT_GT(d, previous) << f;
    previous = d;
  }
  // Balanced routing under a factor below 1 drops the same share of every expert: 1 - f.
  EXPECT_NEAR(group_load(expert_shares(ExpertRouting{}, 8, 0), 4, 0.8).dropped, 0.2, 1e-12);
}

TEST(ExpertRouting, TheBusiestRankIsLoadedMoreTheSteeperTheLaw) {
  // Over DeepSeek-V3's expert layers (256 experts, 64 ranks): the mean busiest load rises with s.
  const auto m = test_shapes::deepseek_v3_layers(61);
  double previous = 1;
  for (double s : {0.25, 0.5, 1.0, 1.5}) {
    const auto sum = summarize_routing(m, zipf(s), 64);
    EXPECT_EQ(sum.expert_layers, 60);
    EXPECT_GT(sum.mean_max_load, previous) << s;
    EXPECT_GE(sum.worst_max_load, sum.mean_max_load);
    EXPECT_EQ(sum.representative_shares.size(), 64U);
    previous = sum.mean_max_load;
  }
  // The representative layer's busiest load is the one nearest the mean.
  const auto sum = summarize_routing(m, zipf(1.0), 64);
  const auto rep = group_load(expert_shares(zipf(1.0), 256, sum.representative), 64, std::nullopt);
  EXPECT_EQ(rep.rank_shares, sum.representative_shares);
  for (int l = 1; l < 61; ++l) {
    const auto g = group_load(expert_shares(zipf(1.0), 256, l), 64, std::nullopt);
    EXPECT_GE(std::abs(g.max_load - sum.mean_max_load), std::abs(rep.max_load - sum.mean_max_load)) << l;
  }
}

TEST(ExpertRouting, ABusierRankRunsItsExpertsOnMoreTokens) {
  // LayerConfig::expert_load scales the tokens of the experts' GEMMs and nothing else.
  const auto m = test_shapes::deepseek_v3_layers(4);
  const auto moe = layer_shape(m, 0);
  LayerConfig c{.micro_batch = 1, .seq_len = 4096, .tp = 1, .ep = 64};
  const auto base = layer_forward(moe, c);
  c.expert_load = 2.5;
  const auto busy = layer_forward(moe, c);
  ASSERT_EQ(base.gemms.size(), busy.gemms.size());
  for (std::size_t i = 0; i < base.gemms.size(); ++i) {
    const bool expert = base.gemms[i].name.rfind("expert_", 0) == 0;
    EXPECT_DOUBLE_EQ(busy.gemms[i].flops(), (expert ? 2.5 : 1.0) * base.gemms[i].flops())
        << base.gemms[i].name;
  }
}
