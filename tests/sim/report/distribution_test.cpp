// Order statistics of Monte Carlo samples: quantiles by interpolation, the distribution-free interval on
// p99, and the seed sequence samples are drawn with.
#include "sim/report/distribution.hpp"

#include <gtest/gtest.h>
#include <set>

using namespace dpusim::report;

TEST(Distribution, QuantilesInterpolateBetweenOrderStatistics) {
  const std::vector<double> sorted{1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.0), 1);
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.5), 3);
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(quantile(sorted, 1.0), 5);
}

TEST(Distribution, MomentsAndQuantilesOfASample) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i)
    v.push_back(i); // unsorted on purpose
  const auto d = distribution_of(v);
  EXPECT_EQ(d.samples, 100u);
  EXPECT_DOUBLE_EQ(d.mean, 50.5);
  EXPECT_NEAR(d.stdev, 29.011491975882016, 1e-12);
  EXPECT_DOUBLE_EQ(d.p50, 50.5);
  EXPECT_DOUBLE_EQ(d.p99, 99.01);
  EXPECT_DOUBLE_EQ(d.max, 100);
  // Binomial(100, 0.99): 2.5% and 97.5% quantiles 97 and 100, so the interval is [x(97), x(100)].
  EXPECT_DOUBLE_EQ(d.p99_low, 97);
  EXPECT_DOUBLE_EQ(d.p99_high, 100);
  EXPECT_LE(d.p99_low, d.p99);
  EXPECT_GE(d.p99_high, d.p99);
}

TEST(Distribution, EqualSamplesHaveNoSpreadAtAll) {
  const auto d = distribution_of(std::vector<double>(7, 6.37919404));
  EXPECT_EQ(d.stdev, 0.0);
  EXPECT_EQ(d.mean, 6.37919404);
  EXPECT_EQ(d.p99_low, d.p99_high);
}

TEST(Distribution, SampleZeroIsTheScenarioAndTheOthersAreDistinctAndFixed) {
  EXPECT_EQ(sample_seed(42, 0), 42u);
  std::set<std::uint64_t> seen;
  for (std::size_t i = 0; i < 1000; ++i) {
    const auto s = sample_seed(1, i);
    EXPECT_LT(s, std::uint64_t{1} << 63U);
    seen.insert(s);
  }
  EXPECT_EQ(seen.size(), 1000u);
  // A fixed sequence: the same on every machine and build.
  EXPECT_EQ(sample_seed(1, 1), 5225608189600411232u);
}
