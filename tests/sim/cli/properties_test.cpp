// Properties of whole iterations that compare two simulations. Each simulation needs a process of its
// own, so these drive the command line.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>

using dpusim::testing::simulate;
using dpusim::testing::TempDir;

namespace {

std::string pipeline(int virtual_stages) {
  return R"(name: pipeline
cluster: {nodes: 4, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}
workload:
  model: {layers: 32, hidden: 4096, heads: 32, vocab: 50257}
  seq_len: 2048
  global_batch: 8
  micro_batch: 1
  parallelism: {tp: 8, pp: 4, dp: 1, virtual_stages: )" +
         std::to_string(virtual_stages) + R"(}
offload: {baseline: rdma-nic}
)";
}

} // namespace

TEST(IterationProperties, InterleavingShrinksThePipelineBubble) {
  TempDir tmp;
  const double plain = simulate(tmp, "v1", pipeline(1), "step_time_s");
  const double interleaved = simulate(tmp, "v2", pipeline(2), "step_time_s");
  const double compute = simulate(tmp, "v2c", pipeline(2), "compute_s");
  // Bubble (p-1)/(m+p-1) = 3/11 of the step with one chunk; about half of it with two.
  EXPECT_LT(interleaved, plain * 0.92);
  EXPECT_GT(interleaved, compute);
}

namespace {
std::string checkpointing(const std::string& mode, const std::string& variant) {
  return R"(name: ckpt
cluster:
  nodes: 2
  node: dgx-h100
  nic: connectx-7
  fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}
  storage: {servers: 2, link: 400Gbps, read_rate: 25GB/s, write_rate: 10GB/s}
workload:
  model: {layers: 8, hidden: 4096, heads: 32, vocab: 32000}
  seq_len: 2048
  global_batch: 16
  micro_batch: 1
  parallelism: {tp: 8, dp: 2}
  checkpoint: {every: 10, mode: )" +
         mode + R"(, size: 4GiB}
offload: {baseline: )" +
         variant + R"(}
)";
}
} // namespace

TEST(CheckpointProperties, SynchronousWriteAddsAtLeastTheMediaTimeAndIsSpreadOverTheInterval) {
  TempDir tmp;
  const auto text = checkpointing("sync", "rdma-nic");
  const double step = simulate(tmp, "s", text, "step_time_s");
  const double with = simulate(tmp, "s", text, "checkpoint_step_s");
  const double per_step = simulate(tmp, "s", text, "step_with_checkpoints_s");
  // 16 GPUs x 4 GiB onto 2 servers writing 10 GB/s each: at least 3.4 s of media time.
  const double media = 16 * 4.0 * 1024 * 1024 * 1024 / (2 * 10e9);
  EXPECT_GE(with - step, media * (1 - 1e-6));
  EXPECT_NEAR(per_step, step + (with - step) / 10, 1e-6 * per_step);
}

TEST(CheckpointProperties, ATimeBetweenCheckpointsIsAsManyWholeStepsAsFitInIt) {
  // every: 10 iterations against every: a time of 10.5 steps of this variant (10 whole steps fit).
  TempDir tmp;
  const std::string text = checkpointing("sync", "rdma-nic");
  const double step = simulate(tmp, "s", text, "step_time_s");
  const double by_count = simulate(tmp, "s", text, "step_with_checkpoints_s");
  std::string timed = text;
  const std::string every = "every: 10,";
  std::ostringstream time;
  time.precision(9);
  time << "every: " << 10.5 * step << "s,";
  timed.replace(timed.find(every), every.size(), time.str());
  std::string out;
  const double by_time = simulate(tmp, "t", timed, "step_with_checkpoints_s", &out);
  EXPECT_NEAR(by_time, by_count, 1e-6 * by_count);
  EXPECT_NE(out.find("(10 iterations of this variant's"), std::string::npos) << out;
  // 1 s: as many whole steps as fit in it (the write's cost spread over them).
  std::string second = text;
  second.replace(second.find(every), every.size(), "every: 1s,");
  const double per_second = simulate(tmp, "o", second, "step_with_checkpoints_s");
  const double fit = std::floor(1.0 / step);
  ASSERT_GE(fit, 1.0);
  EXPECT_NEAR(per_second - step, 10 * (by_count - step) / fit, 1e-6 * per_second);
}

TEST(CheckpointProperties, AsynchronousWriteNeverCostsMoreThanASynchronousOne) {
  TempDir tmp;
  const double sync = simulate(tmp, "s", checkpointing("sync", "host-tcp"), "checkpoint_step_s");
  const double async = simulate(tmp, "a", checkpointing("async", "host-tcp"), "checkpoint_step_s");
  EXPECT_LE(async, sync * (1 + 1e-9));
}

TEST(CheckpointProperties, OsNoiseOnAHostClientLengthensItsWriteByTheShareOfItsCoreLost) {
  // The host client's one connection (one core) writes 8 x 4 GiB a node; the catalog's detours take 1%
  // of that core (TSAFRIR05; the iteration without the checkpoint puts no storage work on the host to
  // raise it), so the write takes f / (1 - f) longer on average.
  TempDir tmp;
  const auto variant = checkpointing("sync", "rdma-nic+storage=host");
  const double step = simulate(tmp, "s", variant, "step_time_s");
  const double clean = simulate(tmp, "c", variant, "checkpoint_step_s");
  const double noisy = simulate(tmp, "n", variant + "noise: {os_noise: true}\n", "checkpoint_step_s");
  const double f = 0.01;
  const double expected = (clean - step) * f / (1 - f);
  EXPECT_NEAR((noisy - clean) / expected, 1.0, 0.05) << noisy - clean << " s against " << expected << " s";
}

TEST(CheckpointProperties, HostClientOnOneConnectionIsSlowerThanGpuDirectStorage) {
  TempDir tmp;
  // One host core's TCP (42 Gb/s) per node for 8 x 4 GiB, against the media's 10 GB/s per server.
  const double host = simulate(tmp, "h", checkpointing("sync", "rdma-nic+storage=host"), "checkpoint_step_s");
  const double gds = simulate(tmp, "g", checkpointing("sync", "rdma-nic"), "checkpoint_step_s");
  EXPECT_GT(host, gds * 1.2);
}

namespace {
/// GPT-3-like job on 32 nodes over four leaves with 8:1 up-links, with or without other tenants.
std::string tenants(const std::string& tenants_line, const std::string& variant) {
  return R"(name: tenants
cluster:
  nodes: 32
  node: dgx-h100
  nic: connectx-7
  dpu: bluefield-3
  fabric: {topology: fat-tree, link: 400Gbps, latency: 1us, oversubscription: "8:1"}
)" + tenants_line +
         R"(
workload:
  model: {layers: 4, hidden: 5120, heads: 40, vocab: 32000}
  seq_len: 2048
  global_batch: 32
  micro_batch: 1
  parallelism: {tp: 8, dp: 32}
offload: {baseline: )" +
         variant + R"(}
)";
}
} // namespace

TEST(TenantProperties, PlainlySharedCrossTrafficNeverSpeedsTheJobUp) {
  TempDir tmp;
  const double alone = simulate(tmp, "a", tenants("", "rdma-nic"), "step_time_s");
  const double shared =
      simulate(tmp, "s", tenants("  tenants: {flows: 64, isolation: shared}", "rdma-nic"), "step_time_s");
  EXPECT_GT(shared, alone * 1.2); // 64 greedy flows per leaf against a few of the job's
}

TEST(TenantProperties, ALargerDpuGuaranteeNeverSlowsTheJob) {
  TempDir tmp;
  double previous = 1e300;
  for (const char* g : {"0.25", "0.5", "0.9"}) {
    const double step = simulate(
        tmp, std::string("g") + g,
        tenants(std::string("  tenants: {flows: 64, isolation: dpu_qos, guarantee: ") + g + "}", "dpu"),
        "step_time_s");
    EXPECT_LE(step, previous * (1 + 1e-9)) << "guarantee " << g;
    previous = step;
  }
  // A plain NIC cannot enforce the limits: it shares plainly whatever the isolation asked for.
  const double nic =
      simulate(tmp, "n", tenants("  tenants: {flows: 64, isolation: dpu_qos, guarantee: 0.9}", "rdma-nic"),
               "step_time_s");
  const double plain =
      simulate(tmp, "p", tenants("  tenants: {flows: 64, isolation: shared}", "rdma-nic"), "step_time_s");
  EXPECT_DOUBLE_EQ(nic, plain);
  EXPECT_LT(previous, nic);
}

TEST(TenantProperties, ADpuAndANicTakeTheSamePathsWithoutTenants) {
  TempDir tmp;
  // Without isolation to enforce, a BlueField carries RDMA like a ConnectX: same ECMP paths, same step.
  const double nic = simulate(tmp, "n", tenants("", "rdma-nic"), "step_time_s");
  const double dpu = simulate(tmp, "d", tenants("", "dpu"), "step_time_s");
  EXPECT_NEAR(dpu / nic, 1.0, 1e-3);
}

TEST(IterationProperties, BlockingPipelineSendsNeverShortenTheStep) {
  TempDir tmp;
  auto text = pipeline(1);
  const double overlapped = simulate(tmp, "o", text, "step_time_s");
  text.insert(text.find("offload:"), "  overlap_p2p: false\n"); // the last key of workload
  const double blocking = simulate(tmp, "b", text, "step_time_s");
  // Stages on different nodes: every activation send crosses the NICs and now holds up its sender.
  EXPECT_GT(blocking, overlapped);
}

TEST(CheckpointProperties, OnASeparateStorageFabricTheNodesStoragePortBoundsTheWrite) {
  TempDir tmp;
  auto text = checkpointing("sync", "rdma-nic");
  const std::string shared_storage =
      "storage: {servers: 2, link: 400Gbps, read_rate: 25GB/s, write_rate: 10GB/s}";
  text.replace(
      text.find(shared_storage), shared_storage.size(),
      "storage: {servers: 2, link: 400Gbps, read_rate: 25GB/s, write_rate: 10GB/s, fabric: separate, "
      "node_link: 10Gbps}");
  const double step = simulate(tmp, "s", text, "step_time_s");
  const double with = simulate(tmp, "s", text, "checkpoint_step_s");
  // 8 GPUs x 4 GiB per node through a 10 Gb/s port: at least 27.5 s, however fast the servers are.
  EXPECT_GE(with - step, 8 * 4.0 * 1024 * 1024 * 1024 / 1.25e9 * (1 - 1e-6));
}

TEST(IterationProperties, PerPeerZeroBuffersAddEveryRanksCopyLaunchesToTheExposedGathers) {
  // ZeRO-3 over 16 ranks without prefetch: each layer's gather is on the critical path. With per-peer
  // buffers every gather and reduce-scatter also launches one copy per peer and weight matrix (5 us each
  // on the DGX H100's Xeon): 4 layers x 4 matrices, plus the token and position tables with the first
  // layer and as the tied output head: 20 matrices per pass, 16 peers.
  TempDir tmp;
  std::string text = R"(name: zero3
cluster: {nodes: 2, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}
workload:
  model: {layers: 4, hidden: 4096, heads: 32, vocab: 50257}
  seq_len: 2048
  global_batch: 16
  micro_batch: 1
  parallelism: {tp: 1, dp: 16}
  zero: 3
  overlap_param_gather: false
offload: {baseline: rdma-nic}
)";
  const double flat = simulate(tmp, "f", text, "step_time_s");
  text.insert(text.find("offload:"), "  zero_buffers: per_peer\n");
  const double per_peer = simulate(tmp, "p", text, "step_time_s");
  const double pass = 20 * 16 * 5e-6;
  // The forward pass runs gather, layer, gather, ... one after the other: its copies are all exposed. In
  // the backward pass the gradients' reduce-scatters may set the pace instead, hiding some of them.
  EXPECT_GE(per_peer - flat, pass * (1 - 1e-6));
  EXPECT_LE(per_peer - flat, 3 * pass * (1 + 1e-6)); // two gathers and one reduce-scatter per matrix
}

namespace {
/// ZeRO-1 over 16 data-parallel ranks, one stage: 8 layers of 201M parameters, so that every layer (and
/// the embedding) fills a gradient bucket of its own unless `bucket` says otherwise.
std::string distributed_optimizer(bool overlap, const std::string& bucket, int micro_batch) {
  return R"(name: distopt
cluster: {nodes: 2, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}
workload:
  model: {layers: 8, hidden: 4096, heads: 32, vocab: 50257}
  seq_len: 4096
  global_batch: )" +
         std::to_string(32 * micro_batch) + R"(
  micro_batch: )" +
         std::to_string(micro_batch) + R"(
  parallelism: {tp: 1, dp: 16}
  zero: 1
  overlap_param_gather: )" +
         (overlap ? "true" : "false") + "\n" + bucket + R"(offload: {baseline: rdma-nic}
)";
}
} // namespace

TEST(IterationProperties, GatheringParametersInTheForwardPassWithOneBucketChangesNothing) {
  // One bucket: its gather runs whole before the first forward instead of after the optimizer step.
  TempDir tmp;
  const std::string one = "  grad_bucket: 100GB\n";
  const double after_step = simulate(tmp, "a", distributed_optimizer(false, one, 1), "step_time_s");
  const double in_forward = simulate(tmp, "f", distributed_optimizer(true, one, 1), "step_time_s");
  EXPECT_NEAR(in_forward, after_step, 1e-9 * after_step);
}

TEST(IterationProperties, GatheringParametersInTheForwardPassHidesAllButTheFirstBucket) {
  // Micro-batches of 8 sequences: each layer's forward (about 20 ms) outlasts the next bucket's gather
  // (about 1 ms), so only the first bucket's gather (the embedding's, 214M of 1.82G parameters: 12%) and
  // the nine buckets' latencies (about 15% of the whole gather here) stay exposed. After the step, the
  // optimizer and the whole gather are what the step runs past its reductions (dp_exposed_s).
  TempDir tmp;
  const double after_step = simulate(tmp, "a", distributed_optimizer(false, "", 8), "step_time_s");
  const double in_forward = simulate(tmp, "f", distributed_optimizer(true, "", 8), "step_time_s");
  const double step_and_gather = simulate(tmp, "a2", distributed_optimizer(false, "", 8), "dp_exposed_s") -
                                 simulate(tmp, "f2", distributed_optimizer(true, "", 8), "dp_exposed_s");
  EXPECT_GT(step_and_gather, 0.0);
  EXPECT_LE(after_step - in_forward, step_and_gather);
  EXPECT_GE(after_step - in_forward, 0.6 * step_and_gather);
}

namespace {
std::string tensor_parallel(bool overlap) {
  return std::string(R"(name: tp
cluster: {nodes: 1, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}
workload:
  model: {layers: 8, hidden: 8192, heads: 64, vocab: 50257}
  seq_len: 4096
  global_batch: 4
  micro_batch: 1
  parallelism: {tp: 8, dp: 1}
  sequence_parallel: true
)") + (overlap ? "  tp_comm_overlap: true\n" : "") +
         "offload: {baseline: rdma-nic}\n";
}
} // namespace

TEST(IterationProperties, OverlappingTensorParallelCommunicationShortensTheStepByWhatItHides) {
  // One replica, one stage: every tensor-parallel collective is on the critical path, so the step
  // shortens by exactly the communication time the overlap hides (tp_comm_s is what stays exposed).
  TempDir tmp;
  const double step = simulate(tmp, "a", tensor_parallel(false), "step_time_s");
  const double step_overlapped = simulate(tmp, "b", tensor_parallel(true), "step_time_s");
  const double tp = simulate(tmp, "c", tensor_parallel(false), "tp_comm_s");
  const double tp_overlapped = simulate(tmp, "d", tensor_parallel(true), "tp_comm_s");
  EXPECT_LT(tp_overlapped, 0.5 * tp); // large GEMMs (h = 8192) hide most of it
  EXPECT_NEAR(step - step_overlapped, tp - tp_overlapped, 1e-6 * step);
}

TEST(HostCoreProperties, ThePeakIsWhatTheTraceShowsAndNeverBelowTheMean) {
  // GPT-3 13B over host TCP, one replica a node: every node alike, so the most busy cores on one node is
  // the largest value of the trace's counter (the nodes' mean over time), and above the step's mean.
  TempDir tmp;
  std::string text =
      dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml");
  const std::string trace = tmp.path() + "/trace.json";
  const double peak = simulate(tmp, "q", text, "host_cpu_peak_cores", nullptr, {"--trace", trace});
  const double mean = simulate(tmp, "q", text, "host_cpu_busy_cores");
  const std::string json = dpusim::testing::read_text(trace);
  const std::string counter = "\"name\":\"busy host cores per node\"";
  double largest = 0;
  for (auto at = json.find(counter); at != std::string::npos; at = json.find(counter, at + 1)) {
    const auto value = json.find("\"cores\":", at);
    ASSERT_NE(value, std::string::npos);
    largest = std::max(largest, std::stod(json.substr(value + 8)));
  }
  EXPECT_NEAR(peak, largest, 1e-4 * largest);
  EXPECT_GT(peak, 2 * mean); // the reduction's burst: 13.5 against 4.7 when this was written
}

TEST(IterationProperties, TheH200RunsTheH100sGemmsAndFasterMemoryBoundWork) {
  // dgx-h200 against dgx-h100 on the quickstart's job: the same die and peak, so the GEMMs take what they
  // take on the H100 and the step cannot gain more than the memory-bound share; 4.8 against 3.35 TB/s
  // makes that share shorter; and 141 GB against 80 GB hold more.
  TempDir tmp;
  const std::string h100 =
      dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml");
  const std::string h200 = dpusim::testing::replaced(h100, "node: dgx-h100", "node: dgx-h200");
  std::string out_h100, out_h200;
  const double compute_h100 = simulate(tmp, "h100", h100, "compute_s", &out_h100);
  const double compute_h200 = simulate(tmp, "h200", h200, "compute_s", &out_h200);
  EXPECT_LT(compute_h200, compute_h100 * 0.99) << "memory-bound kernels run on faster HBM";
  EXPECT_GT(compute_h200, compute_h100 * 0.8) << "the GEMMs, most of the compute, run at the same peak";
  EXPECT_NE(out_h100.find("of 79.3 GiB"), std::string::npos) << out_h100;
  EXPECT_NE(out_h200.find("of 130.9 GiB"), std::string::npos) << out_h200;
}

TEST(IterationProperties, TheDgxB200IsFasterThanTheH100WithinWhatItsPeakAndMemoryAllow) {
  // dgx-b200 against dgx-h100 on the quickstart's job: 2,250 against 989 TFLOPS (2.28x) and 8.0 against
  // 3.35 TB/s (2.39x), so its compute is at most 2.39x shorter, and with its measured GEMM table at
  // least 1.5x; 183,359 MiB (MLPerf's nvidia-smi total) less the CUDA context.
  TempDir tmp;
  const std::string h100 =
      dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml");
  const std::string b200 = dpusim::testing::replaced(h100, "node: dgx-h100", "node: dgx-b200");
  std::string out;
  const double compute_h100 = simulate(tmp, "h100", h100, "compute_s");
  const double compute_b200 = simulate(tmp, "b200", b200, "compute_s", &out);
  EXPECT_GT(compute_b200, compute_h100 / 2.39);
  EXPECT_LT(compute_b200, compute_h100 / 1.5);
  EXPECT_NE(out.find("of 178.7 GiB"), std::string::npos) << out;
}

TEST(IterationProperties, AnEightHundredGigabitNicOnAnH100IsHeldToTheGpusPcie) {
  // connectx-8 (800 Gb/s) on 800G links against connectx-7 (400 Gb/s) on 400G links, on the quickstart's
  // DGX H100 job: GPUDirect RDMA crosses the H100's PCIe Gen5 x16 (64 GB/s), so the network can move at
  // most 64/50 = 1.28x faster, never slower.
  TempDir tmp;
  const std::string cx7 =
      dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml");
  std::string cx8 = dpusim::testing::replaced(cx7, "nic: connectx-7", "nic: connectx-8");
  cx8 = dpusim::testing::replaced(cx8, "link: 400Gbps", "link: 800Gbps");
  cx8 = dpusim::testing::replaced(cx8, "variants: [rdma-nic, dpu]", "variants: [rdma-nic]");
  const auto exposed = [&](const std::string& name, const std::string& text) {
    std::string yaml = dpusim::testing::replaced(text, "baseline: host-tcp", "baseline: rdma-nic");
    return simulate(tmp, name, yaml, "exposed_comm_s");
  };
  const double with_cx7 =
      exposed("cx7", dpusim::testing::replaced(cx7, "variants: [rdma-nic, dpu]", "variants: []"));
  const double with_cx8 =
      exposed("cx8", dpusim::testing::replaced(cx8, "variants: [rdma-nic]", "variants: []"));
  EXPECT_LE(with_cx8, with_cx7 * (1 + 1e-9));
  EXPECT_GE(with_cx8, with_cx7 / 1.28 * (1 - 1e-3));
}

TEST(IterationProperties, TheBlueField3SuperNicRoutesAdaptivelyAsTheDpuDoesWhereTheConnectX7IsHashed) {
  // moe-adaptive-routing.yaml (Mixtral on 320 H100, 2:1 oversubscribed leaves, adaptive routing asked
  // for): the BlueField-3 SuperNIC in its NIC mode places out-of-order RoCE packets as the BlueField-3
  // DPU does, so its step is the DPU variant's; the ConnectX-7 is hashed and slower.
  TempDir tmp;
  const std::string bundled = dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) +
                                                         "/scenarios/examples/moe-adaptive-routing.yaml");
  std::string cx7 = dpusim::testing::replaced(bundled, "  dpu: bluefield-3\n", "");
  cx7 = dpusim::testing::replaced(cx7, "variants: [dpu]", "variants: []");
  const std::string snic = dpusim::testing::replaced(cx7, "nic: connectx-7", "nic: bluefield-3-supernic");
  std::string out;
  const double with_snic = simulate(tmp, "snic", snic, "step_time_s", &out);
  EXPECT_NE(out.find("routing: adaptive; the bluefield-3-supernic places out-of-order Ethernet packets"),
            std::string::npos)
      << out;
  const double with_cx7 = simulate(tmp, "cx7", cx7, "step_time_s", &out);
  EXPECT_NE(out.find("the connectx-7 does not place out-of-order Ethernet packets"), std::string::npos)
      << out;
  const double with_dpu = simulate(tmp, "dpu", bundled, "step_time_s", nullptr, {"--variant", "dpu"});
  EXPECT_NEAR(with_snic / with_dpu, 1.0, 1e-3);
  EXPECT_LT(with_snic, with_cx7 / 1.05);
}
