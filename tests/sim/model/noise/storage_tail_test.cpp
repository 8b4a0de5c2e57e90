// The storage read tail over whole simulations: each sample read waits its latency before its bytes
// flow; noise.storage_tail draws it from the lognormal of the storage's median and 99th percentile, and
// the prefetch queue absorbs what it can. Closed forms: a loader-bound step is its reads' latencies, and
// drawing them costs their mean excess over the median.
#include "tests/support/run_csv.hpp"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <iostream>
#include <string>

using dpusim::testing::mean_of_samples;
using dpusim::testing::simulate;
using dpusim::testing::TempDir;

namespace {

constexpr double kZ99 = 2.3263478740408408;
constexpr int kMicroBatches = 32;

/// One GPU fed by one loader that reads one small sample per micro-batch; `model` sets how long the GPU
/// computes, `latency` the storage's read latency (empty: none), `prefetch` the queue's depth.
std::string loader(const std::string& model, const std::string& latency, int prefetch,
                   const std::string& noise) {
  return "name: st\ncluster:\n  nodes: 1\n  gpus_per_node: 1\n  node: dgx-h100\n  nic: connectx-7\n"
         "  fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}\n"
         "  storage: {servers: 1, link: 400Gbps, read_rate: 25GB/s" +
         (latency.empty() ? std::string() : ", read_latency: " + latency) +
         "}\nworkload:\n  model: " + model +
         "\n  seq_len: 1024\n  global_batch: " + std::to_string(kMicroBatches) +
         "\n  micro_batch: 1\n  parallelism: {tp: 1, dp: 1}\n  data: {sample: 4KiB, decode: 1us, workers: 1, "
         "prefetch: " +
         std::to_string(prefetch) + "}\noffload: {baseline: rdma-nic}\n" + noise + "seed: 1\n";
}

const std::string kTiny = "{layers: 2, hidden: 256, heads: 4, vocab: 1000}";
const std::string kBig = "{layers: 16, hidden: 4096, heads: 32, vocab: 32000}";

} // namespace

TEST(StorageTail, ALoaderBoundStepIsItsReadsLatencies) {
  // 20 ms a read against well under a millisecond of compute a micro-batch: the loader's reads, one
  // after another, are the step; the GPU's work hides behind them.
  TempDir tmp;
  const double none = simulate(tmp, "none", loader(kTiny, "", 1, ""), "step_time_s");
  const double with =
      simulate(tmp, "with", loader(kTiny, "{median: 20ms, p99: 200ms}", 1, ""), "step_time_s");
  EXPECT_GE(with, kMicroBatches * 0.020);
  EXPECT_NEAR(with / (kMicroBatches * 0.020), 1.0, 0.01) << none << " s -> " << with << " s";
  EXPECT_LT(none, 0.1 * with);
}

TEST(StorageTail, DrawnReadsCostTheirMeanExcessOverTheMedian) {
  // Lognormal reads of median m and sigma s have the mean m e^(s^2/2): a loader-bound step of n reads
  // waits n m (e^(s^2/2) - 1) on average beyond the step that charged each the median.
  TempDir tmp;
  const double median = 0.020;
  const double sigma = std::log(10.0) / kZ99;
  const double expected = kMicroBatches * median * (std::exp(sigma * sigma / 2) - 1);
  const double wait = mean_of_samples(
      tmp, "tail", loader(kTiny, "{median: 20ms, p99: 200ms}", 1, "noise: {storage_tail: true}\n"), 1000,
      "straggler_wait_storage_s");
  EXPECT_NEAR(wait / expected, 1.0, 0.05) << wait << " s against " << expected << " s";
}

TEST(StorageTail, APrefetchQueueAheadOfLongComputeAbsorbsTheTail) {
  // The GPU computes for tens of milliseconds a micro-batch; two micro-batches queued ahead hide reads
  // of 1 ms whose 99th percentile is 10 ms: the drawn tail costs nothing.
  TempDir tmp;
  const std::string latency = "{median: 1ms, p99: 10ms}";
  const double wait = mean_of_samples(tmp, "deep", loader(kBig, latency, 2, "noise: {storage_tail: true}\n"),
                                      20, "straggler_wait_s");
  EXPECT_EQ(wait, 0.0);
  // With nothing queued behind a tiny model's compute, the same tail shows.
  const double exposed = mean_of_samples(
      tmp, "shallow", loader(kTiny, latency, 1, "noise: {storage_tail: true}\n"), 20, "straggler_wait_s");
  EXPECT_GT(exposed, 0.0);
}

TEST(StorageTail, SlowerReadsAreNeverFaster) {
  TempDir tmp;
  double previous = 0;
  for (const char* latency : {"{median: 1ms, p99: 5ms}", "{median: 2ms, p99: 10ms}",
                              "{median: 4ms, p99: 20ms}", "{median: 8ms, p99: 40ms}"}) {
    const double step = simulate(tmp, "r" + std::to_string(static_cast<int>(previous * 1e6)),
                                 loader(kTiny, latency, 1, "noise: {storage_tail: true}\n"), "step_time_s");
    EXPECT_GE(step, previous * (1 - 1e-12)) << latency;
    previous = step;
  }
}

TEST(StorageTail, WithoutALatencyTheRunSaysThereIsNoTailAndChangesNothing) {
  TempDir tmp;
  const double plain = simulate(tmp, "plain", loader(kTiny, "", 1, ""), "step_time_s");
  std::string out;
  const double tail =
      simulate(tmp, "tail", loader(kTiny, "", 1, "noise: {storage_tail: true}\n"), "step_time_s", &out);
  EXPECT_EQ(plain, tail);
  EXPECT_NE(out.find("no storage tail: no read latency to draw from"), std::string::npos) << out;
}

TEST(StorageTail, TheScenariosReadLatencyTakesPrecedenceOverAProfiles) {
  // A profile's read latency may be of a local disk; the scenario's is of its storage servers.
  TempDir tmp;
  const std::string profile = tmp.path() + "/p.yaml";
  std::ofstream(profile)
      << "dpusim_profile: 1\ncomplete: true\ncreated: 2026-12-01T00:00:00Z\nrole: host_cpu\n"
         "parameters:\n  storage.read_latency_median:\n    value: 60us\n    provenance: "
         "measured\n    source: test\n  storage.read_latency_p99:\n    value: 200us\n    "
         "provenance: measured\n    source: test\n";
  const std::string calibrated = loader(kTiny, "", 1, "calibration: " + profile + "\n");
  const std::string both = loader(kTiny, "{median: 20ms, p99: 200ms}", 1, "calibration: " + profile + "\n");
  std::string out;
  const double from_profile = simulate(tmp, "profile", calibrated, "step_time_s");
  const double from_scenario = simulate(tmp, "both", both, "step_time_s", &out);
  EXPECT_NEAR(from_scenario / (kMicroBatches * 0.020), 1.0, 0.01);
  EXPECT_LT(from_profile, 0.1 * from_scenario);
  EXPECT_NE(out.find("storage.read_latency_median = 60us (measured, unused; the scenario's "
                     "cluster.storage.read_latency takes precedence)"),
            std::string::npos)
      << out;
}

TEST(StorageTail, OsNoiseOnTheLoadersCostsADecodeBoundStepItsShareOfTheirTime) {
  // A loader that decodes 20 ms a sample on one core is the step; OS detours taking a share f of each
  // core lengthen its work by f / (1 - f) on average (docs/models/noise.md), and the step with it.
  TempDir tmp;
  const std::string profile = tmp.path() + "/noisy.yaml";
  std::ofstream(profile)
      << "dpusim_profile: 1\ncomplete: true\ncreated: 2026-12-01T00:00:00Z\nrole: host_cpu\n"
         "parameters:\n  host_cpu.os_noise_fraction:\n    value: 0.1\n    provenance: "
         "measured\n    source: test\n  host_cpu.os_noise_p99:\n    value: 100us\n    "
         "provenance: measured\n    source: test\n";
  std::string text = loader(kTiny, "", 1, "noise: {os_noise: true}\ncalibration: " + profile + "\n");
  text = dpusim::testing::replaced(text, "decode: 1us", "decode: 20ms");
  const double wait = mean_of_samples(tmp, "decode", text, 50, "straggler_wait_os_s");
  const double expected = kMicroBatches * 0.020 * 0.1 / 0.9;
  EXPECT_NEAR(wait / expected, 1.0, 0.05) << wait << " s against " << expected << " s";
  std::cout << "os noise on the loaders: " << wait << " s against " << expected << " s\n";
  // Two micro-batches queued ahead of a model that computes far longer absorb them.
  std::string deep = loader(kBig, "", 2, "noise: {os_noise: true}\ncalibration: " + profile + "\n");
  deep = dpusim::testing::replaced(deep, "decode: 1us", "decode: 20ms");
  EXPECT_LT(mean_of_samples(tmp, "deep", deep, 5, "straggler_wait_os_s"), 0.01 * wait);
}

namespace {

/// A profile whose host cores lose `fraction` of their time to detours.
std::string noisy_profile(const TempDir& tmp, double fraction) {
  const std::string profile = tmp.path() + "/noisy-host.yaml";
  std::ofstream(profile)
      << "dpusim_profile: 1\ncomplete: true\ncreated: 2026-12-01T00:00:00Z\nrole: host_cpu\n"
         "parameters:\n  host_cpu.os_noise_fraction:\n    value: "
      << fraction
      << "\n    provenance: measured\n    source: test\n  host_cpu.os_noise_p99:\n    value: "
         "100us\n    provenance: measured\n    source: test\n";
  return profile;
}

/// The loader of `loader()` reading a 100 MiB sample per micro-batch through the storage client of
/// `placement` (no read latency), on a node whose NIC is `nic`.
std::string client_bound(const std::string& placement, const std::string& nic, const std::string& noise) {
  std::string text = loader(kTiny, "", 1, noise);
  text = dpusim::testing::replaced(text, "sample: 4KiB", "sample: 100MiB");
  text = dpusim::testing::replaced(text, "baseline: rdma-nic", "baseline: " + placement);
  return dpusim::testing::replaced(text, "nic: connectx-7", "nic: " + nic);
}

} // namespace

TEST(StorageTail, OsNoiseOnAHostStorageClientCostsAClientBoundStepItsShareOfItsCore) {
  // A host storage client (kernel NFS / NVMe-oF, one connection, so one core) reading 100 MiB a
  // micro-batch at the Xeon 8480C's 42.2 Gb/s per core (CAI21) is the step. Detours taking a share f of
  // that core lengthen its work by f / (1 - f) on average, f being the profile's 10% plus the kernel
  // work the client itself puts on the host's 112 cores (docs/models/noise.md).
  TempDir tmp;
  const std::string profile = noisy_profile(tmp, 0.1);
  const std::string calibrated = "calibration: " + profile + "\n";
  const double work = kMicroBatches * 100.0 * 1024 * 1024 / (42.2e9 / 8);
  const double step =
      simulate(tmp, "clean", client_bound("rdma-nic+storage=host", "connectx-7", calibrated), "step_time_s");
  EXPECT_NEAR(step / work, 1.0, 0.01) << step << " s against " << work << " s of client work";
  const double busy = simulate(tmp, "busy", client_bound("rdma-nic+storage=host", "connectx-7", calibrated),
                               "host_cores_storage");
  const double f = 0.1 + busy / 112;
  const double wait = mean_of_samples(
      tmp, "host",
      client_bound("rdma-nic+storage=host", "connectx-7", "noise: {os_noise: true}\n" + calibrated), 20,
      "straggler_wait_os_s");
  const double expected = work * f / (1 - f);
  EXPECT_NEAR(wait / expected, 1.0, 0.03) << wait << " s against " << expected << " s";
  std::cout << "os noise on the host storage client: " << wait << " s against " << expected << " s\n";
}

TEST(StorageTail, OsNoiseReachesSnapsThreadsOnTheArmCoresAndNoClientWhereTheNicReads) {
  // Under SNAP the client's work polls on the BlueField-3's Arm cores, which have detours of their own;
  // NVMe-oF over RDMA in the NIC leaves no client work on any core, so nothing to lengthen.
  TempDir tmp;
  const std::string noise = "noise: {os_noise: true}\ncalibration: " + noisy_profile(tmp, 0.1) + "\n";
  const double arm = mean_of_samples(
      tmp, "arm", client_bound("rdma-nic+storage=dpu_arm", "bluefield-3", noise), 5, "straggler_wait_os_s");
  const double arm_step =
      simulate(tmp, "arm-clean", client_bound("rdma-nic+storage=dpu_arm", "bluefield-3", ""), "step_time_s");
  EXPECT_GT(arm, 0.01 * arm_step) << arm << " s on a " << arm_step << " s step";
  const double nic =
      mean_of_samples(tmp, "nic", client_bound("rdma-nic", "bluefield-3", noise), 5, "straggler_wait_os_s");
  EXPECT_LT(nic, 1e-4 * arm_step) << nic << " s";
}
