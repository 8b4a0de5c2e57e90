// The estimate against the simulation it stands in for: on uncongested fabrics (path pinning: no ECMP
// collisions) every layout, schedule, algorithm and transport the estimator models comes within 5% of
// `dpusim run`; what it does not model is refused, so that the planner simulates it.
#include "sim/estimate/step_estimate.hpp"
#include "sim/input/scenario_loader.hpp"
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace dpusim::estimate {
namespace {

using dpusim::testing::TempDir;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

const catalog::Catalog& bundled_catalog() {
  static const auto cat =
      catalog::Catalog::load(std::filesystem::path(DPUSIM_SOURCE_DIR) / "models/catalog/data");
  return cat;
}

/// The scenario in `file` with `variant` as its only variant.
scenario::Scenario with_variant(const std::string& file, const std::string& variant) {
  auto s = input::load_scenario(file, bundled_catalog());
  std::vector<offload::Variant> only;
  for (const auto& v : s.variants)
    if (v.name == variant)
      only.push_back(v);
  EXPECT_EQ(only.size(), 1u) << variant;
  s.variants = only;
  return s;
}

struct Case {
  const char* name;
  const char* variant;
  std::vector<std::pair<std::string, std::string>> edits; // on the quickstart's text
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.name;
}

const std::string kFabric =
    "fabric: {topology: fat-tree, tiers: 2, link: 400Gbps, latency: 1us, oversubscription: \"1:1\"}";
const std::string kPinned = "fabric: {topology: fat-tree, tiers: 2, link: 400Gbps, latency: 1us, "
                            "oversubscription: \"1:1\", routing: pinned}";

class EstimateAgainstSimulation : public ::testing::TestWithParam<Case> {};

TEST_P(EstimateAgainstSimulation, WithinFivePercentOnAnUncongestedFabric) {
  const auto& c = GetParam();
  TempDir tmp;
  std::string text = replaced(read(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml"),
                              kFabric, kPinned);
  for (const auto& [from, to] : c.edits)
    text = replaced(text, from, to);
  const double simulated =
      dpusim::testing::simulate(tmp, c.name, text, "step_time_s", nullptr, {"--variant", c.variant});
  const auto s = with_variant(tmp.path() + "/" + c.name + ".yaml", c.variant);
  const auto r = estimated_result(s, bundled_catalog());
  EXPECT_NEAR(r.metrics.step_time_s, simulated, 0.05 * simulated) << c.name;
  EXPECT_GT(r.metrics.mfu, 0.0);
  EXPECT_LE(r.metrics.exposed_comm_s, r.metrics.step_time_s);
}

INSTANTIATE_TEST_SUITE_P(
    Quickstart, EstimateAgainstSimulation,
    ::testing::Values(
        Case{"host_tcp", "host-tcp", {}}, Case{"rdma_nic", "rdma-nic", {}}, Case{"dpu", "dpu", {}},
        Case{"pipeline", "rdma-nic", {{"{tp: 8, dp: 8}", "{tp: 4, pp: 2, dp: 8}"}}},
        Case{"interleaved", "rdma-nic", {{"{tp: 8, dp: 8}", "{tp: 4, pp: 2, dp: 8, virtual_stages: 5}"}}},
        Case{"blocking_sends",
             "rdma-nic",
             {{"{tp: 8, dp: 8}", "{tp: 4, pp: 2, dp: 8}"},
              {"precision: bf16", "precision: bf16\n  overlap_p2p: false"}}},
        Case{"host_tcp_pipeline", "host-tcp", {{"{tp: 8, dp: 8}", "{tp: 2, pp: 4, dp: 8}"}}},
        Case{"zero1", "rdma-nic", {{"precision: bf16", "precision: bf16\n  zero: 1"}}},
        Case{"zero3", "rdma-nic", {{"precision: bf16", "precision: bf16\n  zero: 3"}}},
        // Few micro-batches: every replica simulated, each joining its stage's ZeRO-3 collectives.
        Case{"zero3_every_replica",
             "rdma-nic",
             {{"global_batch: 512", "global_batch: 64"}, {"precision: bf16", "precision: bf16\n  zero: 3"}}},
        Case{"zero1_gather_in_forward",
             "rdma-nic",
             {{"precision: bf16", "precision: bf16\n  zero: 1\n  overlap_param_gather: true"}}},
        Case{"zero2_gather_in_forward_interleaved",
             "rdma-nic",
             {{"{tp: 8, dp: 8}", "{tp: 4, pp: 2, dp: 8, virtual_stages: 5}"},
              {"precision: bf16", "precision: bf16\n  zero: 2\n  overlap_param_gather: true"}}},
        Case{"tp_comm_overlap",
             "rdma-nic",
             {{"precision: bf16", "precision: bf16\n  sequence_parallel: true\n  tp_comm_overlap: true"}}},
        Case{"tp_comm_overlap_pipeline_recompute",
             "rdma-nic",
             {{"{tp: 8, dp: 8}", "{tp: 4, pp: 2, dp: 8}"},
              {"precision: bf16",
               "precision: bf16\n  sequence_parallel: true\n  tp_comm_overlap: true\n  recompute: full"}}},
        Case{"zero1_aligned_gathers_interleaved",
             "rdma-nic",
             {{"{tp: 8, dp: 8}", "{tp: 4, pp: 2, dp: 8, virtual_stages: 5}"},
              {"precision: bf16",
               "precision: bf16\n  zero: 1\n  overlap_param_gather: true\n  align_param_gather: true"}}},
        Case{"zero3_per_peer_no_prefetch",
             "rdma-nic",
             {{"{tp: 8, dp: 8}", "{tp: 4, pp: 2, dp: 8}"},
              {"precision: bf16",
               "precision: bf16\n  zero: 3\n  zero_buffers: per_peer\n  overlap_param_gather: false"}}},
        Case{
            "no_overlap", "rdma-nic", {{"precision: bf16", "precision: bf16\n  overlap_grad_reduce: false"}}},
        Case{
            "tree", "rdma-nic", {{"precision: bf16", "precision: bf16\n  communication: {algorithm: tree}"}}},
        Case{
            "nvls", "rdma-nic", {{"precision: bf16", "precision: bf16\n  communication: {algorithm: nvls}"}}},
        Case{"hierarchical",
             "rdma-nic",
             {{"{tp: 8, dp: 8}", "{tp: 2, dp: 32}"},
              {"precision: bf16", "precision: bf16\n  zero: 1\n  communication: {algorithm: hierarchical}"}}},
        Case{"selective", "rdma-nic", {{"precision: bf16", "precision: bf16\n  recompute: selective"}}},
        // NCCL's own choice: each collective in the algorithm and protocol its tuner picks at its size.
        Case{"nccl_auto",
             "rdma-nic",
             {{"precision: bf16", "precision: bf16\n  communication: {algorithm: auto}"}}},
        Case{"nccl_auto_host_tcp",
             "host-tcp",
             {{"precision: bf16", "precision: bf16\n  communication: {algorithm: auto}"}}},
        Case{"nccl_auto_zero3_pipeline",
             "rdma-nic",
             {{"{tp: 8, dp: 8}", "{tp: 4, pp: 2, dp: 8}"},
              {"precision: bf16", "precision: bf16\n  zero: 3\n  communication: {algorithm: auto}"}}}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// A synchronous checkpoint's write (checkpoint_step_s - step_time_s) against the simulation's, bound
// in turn by the servers' media, their ports, the nodes' NICs, a separate storage fabric's node ports,
// and the storage client's cores on the host, on the DPU's Arm cores (SNAP) or on a front-end DPU's.
struct CheckpointCase {
  const char* name;
  const char* variant;
  const char* storage;
};

std::ostream& operator<<(std::ostream& os, const CheckpointCase& c) {
  return os << c.name;
}

/// The quickstart on pinned routes with `storage` and a checkpoint every 10 iterations in `mode`.
std::string checkpointed_quickstart(const std::string& storage, const std::string& mode) {
  const std::string text =
      replaced(read(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml"), kFabric,
               kPinned + "\n  storage: " + storage);
  return replaced(text, "precision: bf16", "precision: bf16\n  checkpoint: {every: 10, mode: " + mode + "}");
}

class CheckpointAgainstSimulation : public ::testing::TestWithParam<CheckpointCase> {};

TEST_P(CheckpointAgainstSimulation, WriteWithinFivePercent) {
  const auto& c = GetParam();
  TempDir tmp;
  std::string text = checkpointed_quickstart(c.storage, "sync");
  if (std::string(c.variant) == "snap")
    text = replaced(text, "variants: [rdma-nic, dpu]",
                    "variants: [rdma-nic, dpu, {name: snap, placement: \"rdma-nic+storage=dpu_arm\"}]");
  const double step =
      dpusim::testing::simulate(tmp, c.name, text, "step_time_s", nullptr, {"--variant", c.variant});
  const double with_checkpoint = dpusim::testing::simulate(
      tmp, std::string(c.name) + "-ck", text, "checkpoint_step_s", nullptr, {"--variant", c.variant});
  const double simulated = with_checkpoint - step;
  ASSERT_GT(simulated, 0.0);
  const auto r =
      estimated_result(with_variant(tmp.path() + "/" + c.name + ".yaml", c.variant), bundled_catalog());
  const double estimated = r.metrics.checkpoint_step_s - r.metrics.step_time_s;
  EXPECT_NEAR(estimated, simulated, 0.05 * simulated) << c.name;
  RecordProperty("simulated_write_s", std::to_string(simulated));
  RecordProperty("estimated_write_s", std::to_string(estimated));
}

INSTANTIATE_TEST_SUITE_P(
    Quickstart, CheckpointAgainstSimulation,
    ::testing::Values(
        CheckpointCase{"media", "rdma-nic",
                       "{servers: 2, link: 400Gbps, read_rate: 10GB/s, write_rate: 2GB/s}"},
        CheckpointCase{"server_port", "rdma-nic", "{servers: 2, link: 100Gbps, read_rate: 40GB/s}"},
        CheckpointCase{"nic", "rdma-nic", "{servers: 64, link: 400Gbps, read_rate: 40GB/s}"},
        CheckpointCase{
            "separate", "rdma-nic",
            "{servers: 64, link: 400Gbps, read_rate: 40GB/s, fabric: separate, node_link: 100Gbps}"},
        CheckpointCase{"host_client", "host-tcp", "{servers: 64, link: 400Gbps, read_rate: 40GB/s}"},
        CheckpointCase{"host_client_connections", "host-tcp",
                       "{servers: 64, link: 400Gbps, read_rate: 40GB/s, client_connections: 4}"},
        CheckpointCase{"dpu", "dpu", "{servers: 4, link: 400Gbps, read_rate: 40GB/s}"},
        CheckpointCase{"snap", "snap", "{servers: 64, link: 400Gbps, read_rate: 40GB/s}"},
        CheckpointCase{
            "frontend_snap", "snap",
            "{servers: 64, link: 400Gbps, read_rate: 40GB/s, fabric: separate, node_nic: bluefield-3}"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// An asynchronous checkpoint, written from the iteration's start beside it: the iteration lasts as long
// as the longer of the two, whether the write outlasts the step (the servers' media or ports bound it)
// or hides behind it (64 servers: the NICs' share is short).
class AsyncCheckpointAgainstSimulation : public ::testing::TestWithParam<CheckpointCase> {};

TEST_P(AsyncCheckpointAgainstSimulation, IterationWithinFivePercent) {
  const auto& c = GetParam();
  TempDir tmp;
  const std::string text = checkpointed_quickstart(c.storage, "async");
  const double simulated =
      dpusim::testing::simulate(tmp, c.name, text, "checkpoint_step_s", nullptr, {"--variant", c.variant});
  const auto r =
      estimated_result(with_variant(tmp.path() + "/" + c.name + ".yaml", c.variant), bundled_catalog());
  EXPECT_NEAR(r.metrics.checkpoint_step_s, simulated, 0.05 * simulated) << c.name;
  EXPECT_GE(r.metrics.checkpoint_step_s, r.metrics.step_time_s);
  RecordProperty("simulated_checkpoint_step_s", std::to_string(simulated));
  RecordProperty("estimated_checkpoint_step_s", std::to_string(r.metrics.checkpoint_step_s));
}

INSTANTIATE_TEST_SUITE_P(
    Quickstart, AsyncCheckpointAgainstSimulation,
    ::testing::Values(
        CheckpointCase{"media", "rdma-nic",
                       "{servers: 2, link: 400Gbps, read_rate: 10GB/s, write_rate: 2GB/s}"},
        CheckpointCase{"media_host_tcp", "host-tcp",
                       "{servers: 2, link: 400Gbps, read_rate: 10GB/s, write_rate: 2GB/s}"},
        CheckpointCase{"server_port", "rdma-nic", "{servers: 2, link: 100Gbps, read_rate: 40GB/s}"},
        CheckpointCase{"server_port_host_tcp", "host-tcp", "{servers: 2, link: 100Gbps, read_rate: 40GB/s}"},
        CheckpointCase{"hidden", "rdma-nic", "{servers: 64, link: 400Gbps, read_rate: 40GB/s}"},
        CheckpointCase{"hidden_host_client", "host-tcp", "{servers: 64, link: 400Gbps, read_rate: 40GB/s}"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(Estimate, ContextParallelScenarioWithinFivePercent) {
  TempDir tmp;
  const std::string text = replaced(
      read(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/long-context-cp.yaml"), kFabric, kPinned);
  const double simulated =
      dpusim::testing::simulate(tmp, "cp", text, "step_time_s", nullptr, {"--variant", "rdma-nic"});
  const auto r = estimated_result(with_variant(tmp.path() + "/cp.yaml", "rdma-nic"), bundled_catalog());
  EXPECT_NEAR(r.metrics.step_time_s, simulated, 0.05 * simulated);
  EXPECT_GT(r.cp_collective_s, 0.0);
}

TEST(Estimate, ExpertParallelScenarioWithinFivePercent) {
  TempDir tmp;
  const std::string text =
      replaced(read(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/moe-expert-parallel.yaml"), kFabric,
               kPinned);
  for (const char* variant : {"rdma-nic", "host-tcp"}) {
    const double simulated = dpusim::testing::simulate(tmp, std::string("moe-") + variant, text,
                                                       "step_time_s", nullptr, {"--variant", variant});
    const auto r =
        estimated_result(with_variant(tmp.path() + "/moe-" + variant + ".yaml", variant), bundled_catalog());
    EXPECT_NEAR(r.metrics.step_time_s, simulated, 0.05 * simulated) << variant;
    EXPECT_GT(r.ep_collective_s, 0.0);
  }
}

TEST(Estimate, LatentAttentionWithDenseFirstLayersWithinFivePercent) {
  // DeepSeek-V3's layer shapes on 12 layers, the first 3 dense (on the first pipeline stage's first
  // chunk and part of the second stage's), interleaved over 2 chunks, expert-parallel across nodes.
  TempDir tmp;
  const std::string text = R"(name: mla
cluster:
  nodes: 8
  node: dgx-h100
  nic: connectx-7
  )" + kPinned + R"(
workload:
  model: {layers: 12, hidden: 7168, heads: 128, head_dim: 128, kv_lora_rank: 512, q_lora_rank: 1536,
          qk_rope_head_dim: 64, v_head_dim: 128, ffn: 18432, dense_layers: 3, experts: 64, top_k: 8,
          expert_ffn: 2048, shared_experts: 1, vocab: 129280, activation: swiglu, tied_embeddings: false,
          position_embeddings: rotary, biases: false, dropout: false}
  seq_len: 4096
  global_batch: 64
  micro_batch: 1
  parallelism: {tp: 1, pp: 2, dp: 32, ep: 16, virtual_stages: 2}
  zero: 1
  recompute: full
offload: {baseline: rdma-nic}
seed: 1
)";
  const double simulated = dpusim::testing::simulate(tmp, "mla", text, "step_time_s", nullptr, {});
  const auto r = estimated_result(with_variant(tmp.path() + "/mla.yaml", "rdma-nic"), bundled_catalog());
  EXPECT_NEAR(r.metrics.step_time_s, simulated, 0.05 * simulated);
  EXPECT_GT(r.ep_collective_s, 0.0);
  RecordProperty("simulated_step_s", std::to_string(simulated));
  RecordProperty("estimated_step_s", std::to_string(r.metrics.step_time_s));
}

namespace {

/// 32 experts (top-4) over 16 ranks of 2-way tensor parallelism on 4 DGX H100 nodes; `workload_extra`
/// (indented lines) ends the workload section.
std::string expert_job(const std::string& workload_extra) {
  return R"(name: experts
cluster:
  nodes: 4
  node: dgx-h100
  nic: connectx-7
  )" + kPinned +
         R"(
workload:
  model: {layers: 8, hidden: 4096, heads: 32, ffn: 14336, experts: 32, top_k: 4, expert_ffn: 2048,
          vocab: 32000, activation: swiglu, tied_embeddings: false, position_embeddings: rotary,
          biases: false, dropout: false}
  seq_len: 4096
  global_batch: 64
  micro_batch: 1
  parallelism: {tp: 2, pp: 1, dp: 16, ep: 16}
)" + workload_extra +
         R"(offload: {baseline: rdma-nic}
seed: 1
)";
}

} // namespace

TEST(Estimate, UnevenExpertRoutingWithinFivePercent) {
  // Routed by a Zipf law: the estimator reads the stage costs (each expert layer on its busiest rank)
  // and sends each rank its share in the all-to-all, as the simulation's probe does. It stays within 5%
  // and, like the simulation, above the balanced step.
  TempDir tmp;
  const std::string text = expert_job("  routing: {load: zipf, zipf_exponent: 1.0}\n");
  const double simulated = dpusim::testing::simulate(tmp, "uneven", text, "step_time_s", nullptr, {});
  const double balanced =
      dpusim::testing::simulate(tmp, "balanced", expert_job(""), "step_time_s", nullptr, {});
  const auto r = estimated_result(with_variant(tmp.path() + "/uneven.yaml", "rdma-nic"), bundled_catalog());
  EXPECT_NEAR(r.metrics.step_time_s, simulated, 0.05 * simulated);
  EXPECT_GT(simulated, 1.05 * balanced);
  RecordProperty("simulated_step_s", std::to_string(simulated));
  RecordProperty("balanced_step_s", std::to_string(balanced));
  RecordProperty("estimated_step_s", std::to_string(r.metrics.step_time_s));
}

TEST(Estimate, PerNodeExpertDispatchWithinFivePercent) {
  // The same experts dispatched once per node (DeepEP), each token's experts on at most 2 of the group's
  // 4 nodes, under a Zipf law: the estimator books the dispatch's hops as the simulation's probe runs
  // them. Both put it below NCCL's per-copy all-to-all.
  TempDir tmp;
  const std::string text = expert_job("  routing: {load: zipf, zipf_exponent: 0.5, node_limit: 2}\n"
                                      "  communication: {ep_dispatch: deepep}\n");
  const double simulated = dpusim::testing::simulate(tmp, "dispatch", text, "ep_comm_s", nullptr, {});
  const double per_copy = dpusim::testing::simulate(
      tmp, "per_copy", expert_job("  routing: {load: zipf, zipf_exponent: 0.5}\n"), "ep_comm_s", nullptr, {});
  const auto r = estimated_result(with_variant(tmp.path() + "/dispatch.yaml", "rdma-nic"), bundled_catalog());
  const double step = dpusim::testing::simulate(tmp, "dispatch", text, "step_time_s", nullptr, {});
  EXPECT_NEAR(r.metrics.step_time_s, step, 0.05 * step);
  EXPECT_GT(r.ep_collective_s, 0.0);
  EXPECT_LT(simulated, 0.8 * per_copy);
  RecordProperty("simulated_ep_comm_s", std::to_string(simulated));
  RecordProperty("per_copy_ep_comm_s", std::to_string(per_copy));
  RecordProperty("simulated_step_s", std::to_string(step));
  RecordProperty("estimated_step_s", std::to_string(r.metrics.step_time_s));
}

TEST(Estimate, CombinedOneFOneBWithinFivePercent) {
  // Megatron-Core's expert-parallel overlap, without a pipeline and interleaved over 2 stages: the
  // estimator times each combined step as the simulation's task does, and waits for both its inputs.
  // Both put the step and the exposed all-to-alls below the schedule without the overlap.
  TempDir tmp;
  const std::string overlap = "  overlap_ep_comm: true\n";
  const std::string flat = "parallelism: {tp: 2, pp: 1, dp: 16, ep: 16}";
  const std::string piped = "parallelism: {tp: 2, pp: 2, virtual_stages: 2, dp: 8, ep: 8}";
  for (const auto& layout : {flat, piped}) {
    const std::string name = layout == flat ? "flat" : "piped";
    const std::string text = replaced(expert_job(overlap), flat, layout);
    const std::string plain = replaced(expert_job(""), flat, layout);
    const double step = dpusim::testing::simulate(tmp, name, text, "step_time_s", nullptr, {});
    const double ep = dpusim::testing::simulate(tmp, name, text, "ep_comm_s", nullptr, {});
    const double plain_step =
        dpusim::testing::simulate(tmp, name + "_plain", plain, "step_time_s", nullptr, {});
    const double plain_ep = dpusim::testing::simulate(tmp, name + "_plain", plain, "ep_comm_s", nullptr, {});
    const auto r =
        estimated_result(with_variant(tmp.path() + "/" + name + ".yaml", "rdma-nic"), bundled_catalog());
    EXPECT_NEAR(r.metrics.step_time_s, step, 0.05 * step) << name;
    EXPECT_LT(step, plain_step) << name;
    EXPECT_LT(ep, 0.8 * plain_ep) << name;
    RecordProperty(name + "_simulated_step_s", std::to_string(step));
    RecordProperty(name + "_without_overlap_step_s", std::to_string(plain_step));
    RecordProperty(name + "_estimated_step_s", std::to_string(r.metrics.step_time_s));
  }
}

TEST(Estimate, DualPipeVWithinFivePercent) {
  // DeepSeek's DualPipeV on 2 stages (4 chunks in two Vs), with and without the expert-parallel
  // overlap: the estimator follows the same eight steps, waits for both inputs of a pair, and passes
  // the last stage's first chunk to its second without a send.
  TempDir tmp;
  const std::string flat = "parallelism: {tp: 2, pp: 1, dp: 16, ep: 16}";
  const std::string v = "parallelism: {tp: 2, pp: 2, virtual_stages: 2, schedule: dualpipev, dp: 8, ep: 8}";
  for (const std::string extra : {"  overlap_ep_comm: true\n", ""}) {
    const std::string name = extra.empty() ? "plain" : "overlap";
    const std::string text = replaced(expert_job(extra), flat, v);
    const double step = dpusim::testing::simulate(tmp, name, text, "step_time_s", nullptr, {});
    const auto r =
        estimated_result(with_variant(tmp.path() + "/" + name + ".yaml", "rdma-nic"), bundled_catalog());
    EXPECT_NEAR(r.metrics.step_time_s, step, 0.05 * step) << name;
    RecordProperty(name + "_simulated_step_s", std::to_string(step));
    RecordProperty(name + "_estimated_step_s", std::to_string(r.metrics.step_time_s));
  }
}

TEST(Estimate, EveryBundledScenarioItModelsWithinFivePercentOfItsReference) {
  // Each variant of each bundled example the estimator models, against its simulated reference
  // (results/<name>/comparison.csv, which the golden tests hold to the simulation), ECMP as bundled.
  std::size_t estimated = 0;
  double worst = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples")) {
    const auto all = input::load_scenario(entry.path().string(), bundled_catalog());
    const auto reference = dpusim::testing::csv_rows(std::filesystem::path(DPUSIM_SOURCE_DIR) / "results" /
                                                     all.name / "comparison.csv");
    for (const auto& row : reference) {
      auto s = all;
      s.variants.clear();
      for (const auto& v : all.variants)
        if (v.name == row.at("variant"))
          s.variants.push_back(v);
      ASSERT_EQ(s.variants.size(), 1u) << all.name << " " << row.at("variant");
      try {
        const double est = estimated_result(s, bundled_catalog()).metrics.step_time_s;
        const double sim = std::stod(row.at("step_time_s"));
        EXPECT_NEAR(est, sim, 0.05 * sim) << all.name << " " << row.at("variant");
        worst = std::max(worst, std::abs(est - sim) / sim);
        ++estimated;
      } catch (const NotEstimated&) {
      }
    }
  }
  EXPECT_GE(estimated, 25u);
  RecordProperty("estimated_variants", static_cast<int>(estimated));
  RecordProperty("worst_relative_error", std::to_string(worst));
}

TEST(Estimate, RefusesWhatItDoesNotModel) {
  const std::string dir = std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/";
  for (const char* file : {"host-tcp-os-noise.yaml", "checkpoint-incast-pfc.yaml", "slow-node.yaml",
                           "shared-fabric-tenants.yaml"}) {
    auto s = input::load_scenario(dir + file, bundled_catalog());
    EXPECT_THROW((void)estimated_result(s, bundled_catalog()), NotEstimated) << file;
  }
}

TEST(Estimate, MoreDataParallelBytesNeverMakeItFaster) {
  // Property: on the same GPUs, a larger global batch (more micro-batches) costs more per step, and
  // the step is at least the busiest GPU's kernels.
  auto s = input::load_scenario(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml",
                                bundled_catalog());
  double previous = 0;
  for (int gb : {64, 128, 256, 512, 1024}) {
    s.workload.global_batch = gb;
    const auto r = estimated_result(s, bundled_catalog());
    EXPECT_GE(r.metrics.step_time_s, r.metrics.compute_s);
    EXPECT_GT(r.metrics.step_time_s, previous) << gb;
    previous = r.metrics.step_time_s;
  }
}

} // namespace
} // namespace dpusim::estimate
