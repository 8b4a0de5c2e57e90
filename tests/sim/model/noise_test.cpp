// The noise model's closed forms and properties, over whole simulations: ranks that synchronise once
// per step, each delayed by an i.i.d. exponential of mean mu, wait mu * H_N on average (harmonic number);
// more noise is never faster; no noise section gives exactly the noise-free result.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <numeric>
#include <regex>
#include <sstream>
#include <string>

using dpusim::testing::run_command;
using dpusim::testing::simulate;
using dpusim::testing::TempDir;

namespace {

/// Pure data parallelism over n GPUs (8 per node), one micro-batch per step: one synchronisation.
std::string ranks(int n, const std::string& noise) {
  const int nodes = (n + 7) / 8;
  return "name: noise\ncluster:\n  nodes: " + std::to_string(nodes) +
         "\n  node: dgx-h100\n  nic: connectx-7\n  fabric: {topology: rail-optimized, link: 400Gbps, "
         "latency: "
         "1us}\nworkload:\n  model: {layers: 4, hidden: 2048, heads: 16, vocab: 32000}\n  seq_len: 1024\n"
         "  global_batch: " +
         std::to_string(n) + "\n  micro_batch: 1\n  parallelism: {tp: 1, dp: " + std::to_string(n) +
         "}\noffload: {baseline: rdma-nic}\n" + noise + "seed: 1\n";
}

/// The mean of straggler_wait_s over `samples` samples.
double mean_wait(const TempDir& tmp, const std::string& name, const std::string& text, int samples) {
  return dpusim::testing::mean_of_samples(tmp, name, text, samples, "straggler_wait_s");
}

double harmonic(int n) {
  double h = 0;
  for (int k = 1; k <= n; ++k)
    h += 1.0 / k;
  return h;
}

} // namespace

TEST(NoiseProperties, ExponentialDelaysWaitTheHarmonicNumberTimesTheirMean) {
  TempDir tmp;
  const double mu = 0.010;
  for (const auto& [n, samples] : {std::pair{8, 1000}, std::pair{64, 1000}, std::pair{512, 100}}) {
    const double wait =
        mean_wait(tmp, "n" + std::to_string(n),
                  ranks(n, "noise: {gpu_delay: {distribution: exponential, mean: 10ms}}\n"), samples);
    EXPECT_NEAR(wait / (mu * harmonic(n)), 1.0, 0.05) << n << " ranks: " << wait << " s";
  }
}

TEST(NoiseProperties, LongerDelaysAndSlowerGpusAreNeverFaster) {
  TempDir tmp;
  double previous = 0;
  for (const char* mean : {"0ms", "1ms", "2ms", "4ms"}) {
    const double step =
        simulate(tmp, std::string("d") + mean,
                 ranks(64, std::string("noise: {gpu_delay: {mean: ") + mean + "}}\n"), "step_time_s");
    EXPECT_GE(step, previous * (1 - 1e-12)) << mean;
    previous = step;
  }
  previous = 0;
  for (const char* speed : {"1.0", "0.9", "0.7", "0.5"}) {
    const double step = simulate(
        tmp, std::string("s") + speed,
        ranks(64, std::string("noise: {slow_gpus: {fraction: 0.1, speed: ") + speed + "}}\n"), "step_time_s");
    EXPECT_GE(step, previous * (1 - 1e-12)) << speed;
    previous = step;
  }
}

TEST(NoiseProperties, EverySlowGpuAtHalfSpeedDoublesTheComputeAndNothingWaits) {
  TempDir tmp;
  const double clean = simulate(tmp, "clean", ranks(16, ""), "compute_s");
  const double slow =
      simulate(tmp, "slow", ranks(16, "noise: {slow_gpus: {fraction: 1, speed: 0.5}}\n"), "compute_s");
  EXPECT_NEAR(slow / clean, 2.0, 1e-6);
}

TEST(NoiseProperties, NoNoiseIsTheNoiseFreeResultExactly) {
  TempDir tmp;
  const double plain = simulate(tmp, "plain", ranks(64, ""), "step_time_s");
  const double zero = simulate(tmp, "zero", ranks(64, "noise: {gpu_jitter: 0}\n"), "step_time_s");
  EXPECT_EQ(plain, zero);
}

namespace {
std::string tail_scenario(const std::string& variant) {
  return "name: tail\ncluster:\n  nodes: 8\n  node: dgx-h100\n  nic: connectx-7\n  fabric: {topology: "
         "fat-tree, "
         "link: 400Gbps, latency: 1us}\nworkload:\n  model: {layers: 4, hidden: 2048, heads: 16, vocab: "
         "32000}\n"
         "  seq_len: 1024\n  global_batch: 64\n  micro_batch: 1\n  parallelism: {tp: 8, dp: 8}\n"
         "offload: {baseline: " +
         variant + "}\nnoise: {network_tail: true}\nseed: 1\n";
}
} // namespace

TEST(NoiseProperties, NetworkTailsLeaveRdmaInNicHardwareAsItIs) {
  TempDir tmp;
  std::string text = tail_scenario("rdma-nic");
  const double with = simulate(tmp, "with", text, "step_time_s");
  text.replace(text.find("noise: {network_tail: true}\n"),
               std::string("noise: {network_tail: true}\n").size(), "");
  EXPECT_EQ(with, simulate(tmp, "without", text, "step_time_s"));
}

TEST(NoiseProperties, DrawnHostTcpStepsVaryAroundTheirExpectedMaximum) {
  // The noise-free plan charges each step the expected largest of its hops' lognormal latencies; drawing
  // them varies the step from seed to seed around that value.
  TempDir tmp;
  const std::string file = tmp.path() + "/t.yaml";
  std::ofstream(file) << tail_scenario("host-tcp");
  const auto r =
      run_command({DPUSIM_BINARY, "run", file, "--samples", "30", "--out", tmp.path() + "/t", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = dpusim::testing::csv_rows(tmp.path() + "/t/distribution.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("over"), "steps");
  EXPECT_EQ(rows[0].at("count"), "30");
  EXPECT_GT(std::stod(rows[0].at("stdev_step_s")), 0.0);
  std::string text = tail_scenario("host-tcp");
  text.replace(text.find("noise: {network_tail: true}\n"),
               std::string("noise: {network_tail: true}\n").size(), "");
  const double clean = simulate(tmp, "clean", text, "step_time_s");
  EXPECT_NEAR(std::stod(rows[0].at("mean_step_s")) / clean, 1.0, 0.01);
}

TEST(NoiseProperties, OsNoiseSlowsHostTcpStepsAndLeavesRdmaInNicHardwareNearlyAlone) {
  // Host TCP runs every network hop's software on host cores, whose detours the steps wait for; RDMA in
  // the NIC exposes only the launch threads, whose detours the GPUs' longer kernels absorb.
  TempDir tmp;
  auto with_os = [](std::string text) {
    text.replace(text.find("noise: {network_tail: true}"), std::string("noise: {network_tail: true}").size(),
                 "noise: {os_noise: true}");
    return text;
  };
  auto without = [](std::string text) {
    text.replace(text.find("noise: {network_tail: true}\n"),
                 std::string("noise: {network_tail: true}\n").size(), "");
    return text;
  };
  const double tcp_clean = simulate(tmp, "tcp-clean", without(tail_scenario("host-tcp")), "step_time_s");
  const double tcp_noisy = simulate(tmp, "tcp-noisy", with_os(tail_scenario("host-tcp")), "step_time_s");
  const double rdma_clean = simulate(tmp, "rdma-clean", without(tail_scenario("rdma-nic")), "step_time_s");
  const double rdma_noisy = simulate(tmp, "rdma-noisy", with_os(tail_scenario("rdma-nic")), "step_time_s");
  EXPECT_GT(tcp_noisy, tcp_clean);
  EXPECT_GE(rdma_noisy, rdma_clean);
  EXPECT_LT(rdma_noisy - rdma_clean, tcp_noisy - tcp_clean);
}

TEST(NoiseProperties, MoreOsNoiseIsNeverFaster) {
  TempDir tmp;
  std::string text = tail_scenario("host-tcp");
  text.replace(text.find("noise: {network_tail: true}"), std::string("noise: {network_tail: true}").size(),
               "noise: {os_noise: true}");
  double previous = 0;
  // Larger detours of the same shape: the 99th percentile 9.9 times the mean detour, as the catalog's.
  for (const auto& [fraction, p99] : {std::pair{"0.002", "1.984us"}, std::pair{"0.01", "10us"},
                                      std::pair{"0.04", "41.25us"}, std::pair{"0.1", "110us"}}) {
    const std::string profile = tmp.path() + "/profile-" + fraction + ".yaml";
    std::ofstream(profile) << "dpusim_profile: 1\ncomplete: true\ncreated: 2026-12-01T00:00:00Z\nrole: "
                              "host_cpu\nparameters:\n  host_cpu.os_noise_fraction:\n    value: "
                           << fraction
                           << "\n    provenance: measured\n    source: test\n  host_cpu.os_noise_p99:\n"
                              "    value: "
                           << p99 << "\n    provenance: measured\n    source: test\n";
    const double step =
        simulate(tmp, std::string("f") + fraction, text + "calibration: " + profile + "\n", "step_time_s");
    EXPECT_GE(step, previous * (1 - 1e-12)) << fraction;
    previous = step;
  }
}

TEST(NoiseProperties, TheBundledOsNoiseScenarioMakesItsClaim) {
  // scenarios/examples/host-tcp-os-noise.yaml: host TCP pays a straggler wait, mostly OS noise; RDMA on
  // the NIC or the DPU removes it; it is a small share of the step, and the comparison says where from.
  TempDir tmp;
  const auto r = run_command({DPUSIM_BINARY, "compare",
                              std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/host-tcp-os-noise.yaml",
                              "--out", tmp.path() + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex by_source(
      R"(host-tcp's comes from OS noise ([0-9.]+) s, the network's software tail ([0-9.]+) s)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, by_source)) << r.out;
  const double os = std::stod(m[1]);
  const double tail = std::stod(m[2]);
  EXPECT_GT(os, tail);
  const std::regex waits(R"(The straggler wait is ([0-9.]+) s vs ([0-9.]+) s per step)");
  int compared = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), waits); it != std::sregex_iterator();
       ++it) {
    const double variant_wait = std::stod((*it)[1]);
    const double baseline_wait = std::stod((*it)[2]);
    EXPECT_NEAR(baseline_wait, os + tail, 2e-4);
    EXPECT_LT(variant_wait, 0.05 * baseline_wait);
    ++compared;
  }
  EXPECT_EQ(compared, 2) << r.out; // rdma-nic and dpu against host-tcp
  EXPECT_NE(r.out.find("raised to"), std::string::npos) << "the kernel TCP work raises the host's noise";
}

TEST(NoiseProperties, TheBundledStragglersScenarioKeepsAJobsStepsApartFromItsLaunches) {
  // scenarios/examples/gpu-stragglers.yaml: within one job the jitter moves the step by under 1% at p99
  // in every variant; across launches the straggler wait is the same in every variant, and the RDMA
  // step's spread (ECMP luck, the job's draw) is far wider than host TCP's. Fewer draws than the header's
  // 20 x 10: its launch 0 and its first launches are these.
  TempDir tmp;
  const auto r = run_command({DPUSIM_BINARY, "compare",
                              std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/gpu-stragglers.yaml",
                              "--launches", "8", "--samples", "3", "--out", tmp.path() + "/out", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = dpusim::testing::csv_rows(tmp.path() + "/out/distribution.csv");
  std::map<std::string, double> spread; // launches' max over p50, by variant
  int steps = 0;
  for (const auto& row : rows) {
    const double ratio = std::stod(row.at("p99_step_s")) / std::stod(row.at("p50_step_s"));
    if (row.at("over") == "steps") {
      EXPECT_LT(ratio, 1.01) << row.at("variant") << " launch " << row.at("launch");
      ++steps;
    } else {
      spread[row.at("variant")] = std::stod(row.at("max_step_s")) / std::stod(row.at("p50_step_s"));
    }
  }
  EXPECT_EQ(steps, 3 * 8);
  ASSERT_EQ(spread.size(), 3u);
  EXPECT_LT(spread.at("host-tcp"), 1.01);
  EXPECT_GT(spread.at("rdma-nic"), 1.05);
  EXPECT_NEAR(spread.at("dpu"), spread.at("rdma-nic"), 0.01);
  // The straggler wait is the GPUs': run by run, the same in every variant.
  std::map<std::string, std::string> wait; // by launch and sample
  for (const auto& row : dpusim::testing::csv_rows(tmp.path() + "/out/samples.csv")) {
    const auto key = row.at("launch") + "/" + row.at("sample");
    const auto [it, first] = wait.try_emplace(key, row.at("straggler_wait_s"));
    if (!first) {
      EXPECT_NEAR(std::stod(it->second), std::stod(row.at("straggler_wait_s")), 1e-6) << key;
    }
  }
  EXPECT_EQ(wait.size(), 8u * 3u);
}
