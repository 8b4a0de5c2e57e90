// The fits recover known parameters from synthetic samples with noise (fixed seeds: deterministic).
#include "hw_calib/fit/alpha_beta_fit.hpp"
#include "hw_calib/fit/linear_fit.hpp"
#include "hw_calib/fit/lognormal_fit.hpp"
#include "hw_calib/fit/sample_stats.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <stdexcept>
#include <vector>

using namespace dpusim::calib;

TEST(calib_LinearFit, RecoversCpuSecondsPerByteFromNoisyCumulativeSamples) {
  // 40 windows of ~50 ms; one core moves 5 GB/s, i.e. 2e-10 CPU-s per byte, plus 1 ms of start-up cost.
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(0.0, 2e-4);
  std::vector<double> bytes, cpu;
  for (int i = 1; i <= 40; ++i) {
    const double b = i * 250e6;
    bytes.push_back(b);
    cpu.push_back(1e-3 + b * 2e-10 + noise(rng));
  }
  const LinearFit fit = fit_linear(bytes, cpu);
  EXPECT_NEAR(fit.slope, 2e-10, 2e-10 * 0.01);
  EXPECT_NEAR(1.0 / fit.slope, 5e9, 5e9 * 0.01);
  EXPECT_NEAR(fit.intercept, 1e-3, 5e-4);
  EXPECT_GT(fit.r2, 0.999);
  EXPECT_EQ(fit.samples, 40);
}

TEST(calib_LinearFit, RejectsDegenerateInput) {
  const std::vector<double> one{1.0};
  EXPECT_THROW(fit_linear(one, one), std::invalid_argument);
  const std::vector<double> same{2.0, 2.0, 2.0}, y{1.0, 2.0, 3.0};
  EXPECT_THROW(fit_linear(same, y), std::invalid_argument);
  const std::vector<double> x2{1.0, 2.0};
  EXPECT_THROW(fit_linear(x2, y), std::invalid_argument);
}

TEST(calib_AlphaBetaFit, RecoversLatencyAndBandwidthOverMessageSizes) {
  // An RDMA-like transport: alpha = 1.8 us, beta = 48 GB/s; 3 % multiplicative noise, sizes 2 B .. 8 MiB.
  const double alpha = 1.8e-6, beta = 48e9;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.03);
  std::vector<double> sizes, times;
  for (double s = 2; s <= 8.0 * 1024 * 1024; s *= 2) {
    for (int rep = 0; rep < 3; ++rep) {
      sizes.push_back(s);
      times.push_back((alpha + s / beta) * (1.0 + noise(rng)));
    }
  }
  const AlphaBetaFit fit = fit_alpha_beta(sizes, times);
  EXPECT_NEAR(fit.alpha_s, alpha, alpha * 0.05);
  EXPECT_NEAR(fit.beta_Bps, beta, beta * 0.05);
  EXPECT_GT(fit.r2, 0.99);
  EXPECT_LT(fit.rmse_rel, 0.05);
  EXPECT_NEAR(fit.n_half_bytes(), alpha * beta, alpha * beta * 0.1);
  EXPECT_NEAR(fit.efficiency(fit.n_half_bytes()), 0.5, 1e-9);
  EXPECT_GT(fit.efficiency(8.0 * 1024 * 1024), 0.98); // n_half = 86 kB
}

TEST(calib_AlphaBetaFit, RejectsTimesThatDoNotGrowWithSize) {
  const std::vector<double> sizes{1, 2, 3}, times{3e-6, 2e-6, 1e-6};
  EXPECT_THROW(fit_alpha_beta(sizes, times), std::invalid_argument);
}

TEST(calib_LognormalFit, RecoversMuSigmaWithSmallKsStatistic) {
  // TCP request/response latency: median 25 us, sigma 0.35.
  const double mu = std::log(25e-6), sigma = 0.35;
  std::mt19937_64 rng(2024);
  std::lognormal_distribution<double> dist(mu, sigma);
  std::vector<double> samples(20000);
  for (auto& s : samples)
    s = dist(rng);
  const LognormalFit fit = fit_lognormal(samples);
  EXPECT_NEAR(fit.mu, mu, 0.01);
  EXPECT_NEAR(fit.sigma, sigma, 0.01);
  EXPECT_NEAR(fit.median(), 25e-6, 25e-6 * 0.01);
  EXPECT_LT(fit.ks_statistic, 0.015); // ~1.36/sqrt(n) = 0.0096 would be the 5 % critical value
  EXPECT_EQ(fit.samples, 20000);
}

TEST(calib_LognormalFit, KsStatisticDetectsAWrongShape) {
  // Uniform samples are not lognormal: D must be clearly larger than for lognormal data.
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> dist(1.0, 2.0);
  std::vector<double> samples(5000);
  for (auto& s : samples)
    s = dist(rng);
  EXPECT_GT(fit_lognormal(samples).ks_statistic, 0.03);
}

TEST(calib_LognormalFit, IgnoresNonPositiveSamplesAndNeedsTwo) {
  const std::vector<double> samples{0.0, -1.0, 2.0};
  EXPECT_THROW(fit_lognormal(samples), std::invalid_argument);
}

TEST(calib_SampleStats, QuantilesInterpolate) {
  std::vector<double> v;
  for (int i = 1; i <= 1001; ++i)
    v.push_back(i);
  const SampleSummary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.p50, 501);
  EXPECT_DOUBLE_EQ(s.p99, 991);
  EXPECT_DOUBLE_EQ(s.p999, 1000);
  EXPECT_DOUBLE_EQ(s.max, 1001);
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 251);
  EXPECT_THROW(quantile(std::vector<double>{}, 0.5), std::invalid_argument);
}
