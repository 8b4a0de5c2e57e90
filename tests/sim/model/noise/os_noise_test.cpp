// The OS noise detour distribution: its lognormal shape reproduces the calibrated 99th percentile, its
// draws lose the calibrated share of the time on average, and kernel work on the core raises that share.
#include "models/calibration/parameters.hpp"
#include "sim/model/noise/os_noise.hpp"

#include <cmath>
#include <gtest/gtest.h>

using dpusim::model::Detours;
using dpusim::model::lognormal_sigma_for;

namespace {

constexpr double kZ99 = 2.3263478740408408;
constexpr double kQ = dpusim::calibration::kOsNoiseQuantumS;

double mean_over(const Detours& d, double work_s, int draws) {
  boost::random::mt19937_64 rng(7);
  double sum = 0;
  for (int i = 0; i < draws; ++i)
    sum += d.over(work_s, rng);
  return sum / draws;
}

} // namespace

TEST(OsNoise, LognormalShapeGivesTheMeanAndThe99thPercentile) {
  for (const auto& [mean, p99] : {std::pair{1e-6, 10e-6}, std::pair{24.7e-6, 30e-6}, std::pair{5e-6, 3e-6}}) {
    const double sigma = lognormal_sigma_for(mean, p99);
    ASSERT_GT(sigma, 0) << mean << " " << p99;
    const double mu = std::log(mean) - sigma * sigma / 2;
    EXPECT_NEAR(std::exp(mu + kZ99 * sigma) / p99, 1.0, 1e-9) << mean << " " << p99;
  }
  // A percentile more than e^(z^2/2) times the mean is out of a lognormal's reach: the heaviest shape.
  EXPECT_DOUBLE_EQ(lognormal_sigma_for(1e-6, 100e-6), kZ99);
}

TEST(OsNoise, DrawsLoseTheCalibratedShareOfTheTime) {
  // 1 % lost: each 100 us quantum of work carries q f / (1 - f) of detour on average.
  const Detours d(0.01, 10e-6, 0);
  EXPECT_DOUBLE_EQ(d.fraction(), 0.01);
  EXPECT_NEAR(d.mean_per_quantum_s(), kQ * 0.01 / 0.99, 1e-15);
  for (const double work : {0.3 * kQ, 1.0 * kQ, 2.5 * kQ, 40 * kQ, 1000 * kQ}) {
    const double expected = work / kQ * d.mean_per_quantum_s();
    EXPECT_NEAR(mean_over(d, work, 200000) / expected, 1.0, 0.03) << work;
  }
  EXPECT_EQ(mean_over(d, 0, 10), 0.0);
}

TEST(OsNoise, KernelWorkOnTheCoresRaisesTheShareLost) {
  const Detours idle(0.01, 10e-6, 0);
  const Detours loaded(0.01, 10e-6, 0.08);
  EXPECT_DOUBLE_EQ(loaded.fraction(), 0.09);
  EXPECT_DOUBLE_EQ(loaded.sigma(), idle.sigma());
  EXPECT_NEAR(mean_over(loaded, kQ, 200000) / (kQ * 0.09 / 0.91), 1.0, 0.03);
  EXPECT_GT(mean_over(loaded, kQ, 1000), mean_over(idle, kQ, 1000));
  // Nothing lost, nothing drawn; the share is bounded below 1.
  EXPECT_FALSE(Detours(0, 10e-6, 0).any());
  EXPECT_LE(Detours(0.5, 10e-6, 5).fraction(), 0.9);
}
