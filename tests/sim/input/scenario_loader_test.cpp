#include "models/base/input_error.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/scenario/rank_memory.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>

using namespace dpusim;

namespace {

const catalog::Catalog& the_catalog() {
  return dpusim::testing::bundled_catalog();
}

scenario::Scenario parse(const std::string& text) {
  return input::parse_scenario(yaml::parse_text(text, "test.yaml"), the_catalog());
}

const std::string kBase = R"(name: t
cluster:
  nodes: 2
  node: dgx-h100
  fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}
workload:
  model: gpt3-13b
  seq_len: 2048
  global_batch: 64
  micro_batch: 1
  parallelism: {tp: 8, dp: 2}
offload: {baseline: host-tcp, variants: [rdma-nic, dpu, rdma-nic]}
)";

} // namespace

TEST(ScenarioLoader, LoadsTheQuickstart) {
  const auto s = input::load_scenario(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml",
                                      the_catalog());
  EXPECT_EQ(s.name, "gpt3-13b-64xh100");
  EXPECT_EQ(s.cluster.nodes, 8);
  EXPECT_DOUBLE_EQ(s.cluster.fabric.link.si(), 50e9);
  EXPECT_DOUBLE_EQ(s.cluster.fabric.latency.si(), 1e-6);
  EXPECT_EQ(s.workload.parallelism.tp, 8);
  EXPECT_EQ(s.workload.micro_batches(), 64);
  ASSERT_EQ(s.variants.size(), 3u);
  EXPECT_EQ(s.variants[0].name, "host-tcp");
  EXPECT_EQ(s.variants[1].name, "rdma-nic");
  EXPECT_EQ(s.variants[2].name, "dpu");
  EXPECT_EQ(s.cluster.dpu, "bluefield-3"); // the DPU built around the scenario's ConnectX-7
  EXPECT_EQ(s.seed, 1u);
}

TEST(ScenarioLoader, AppliesDefaultsAndDeduplicatesVariants) {
  const auto s = parse(kBase);
  EXPECT_EQ(s.cluster.nic, "connectx-7"); // the node's own
  EXPECT_EQ(s.cluster.fabric.switch_model, "sn5600");
  EXPECT_DOUBLE_EQ(s.cluster.fabric.oversubscription, 1.0);
  EXPECT_EQ(s.variants.size(), 3u);
  EXPECT_EQ(s.workload.precision, workload::Precision::bf16);
  // Megatron's default bucket: max(40M, 1M x dp) parameters of fp32 gradients.
  EXPECT_DOUBLE_EQ(s.workload.grad_bucket.si(), 40e6 * 4);
}

TEST(ScenarioLoader, AcceptsAnInlineModel) {
  std::string text = kBase;
  text.replace(
      text.find("model: gpt3-13b"), 15,
      "model: {name: tiny, layers: 4, hidden: 1024, heads: 16, kv_heads: 8, ffn: 2816, vocab: 32000, "
      "activation: swiglu}");
  const auto s = parse(text);
  EXPECT_EQ(s.workload.model.name, "tiny");
  EXPECT_EQ(s.workload.model.kv_heads, 8);
  EXPECT_EQ(s.workload.model_origin, "inline");
}

TEST(ScenarioLoader, FullRecomputationMakesALargeModelFit) {
  std::string text = kBase;
  text.replace(text.find("gpt3-13b"), 8, "gpt3-175b");
  text.replace(text.find("nodes: 2"), 8, "nodes: 16");
  text.replace(text.find("{tp: 8, dp: 2}"), 14, "{tp: 8, pp: 16, dp: 1}");
  text.replace(text.find("micro_batch: 1"), 14, "micro_batch: 2\n  attention: unfused");
  EXPECT_THROW((void)parse(text), InputError);
  text.replace(text.find("attention: unfused"), 18, "attention: unfused\n  recompute: full");
  EXPECT_NO_THROW((void)parse(text));
}

// A GPU holds what the device reports (an H100 80GB: 81559 MiB) less the CUDA context (400 MiB): a
// configuration needing 77 GiB fits, though it exceeds 80 GB read as decimal (74.5 GiB); one needing
// more than 79.25 GiB does not, and the message says why.
TEST(ScenarioLoader, TheMemoryCheckUsesTheDevicesCapacityLessTheCudaContext) {
  auto with = [](int seq) {
    std::string text = kBase;
    text.replace(text.find("seq_len: 2048"), 13, fmt::format("seq_len: {}\n  attention: unfused", seq));
    return text;
  };
  const auto base = parse(kBase);
  auto need_gib = [&](int seq) {
    auto w = base.workload;
    w.seq_len = seq;
    w.attention = workload::AttentionKernel::unfused;
    return scenario::peak_rank_memory(w).total() / (1024.0 * 1024 * 1024);
  };
  int fits = 0;
  int over = 0;
  for (int seq = 4096; seq <= 8192 && (fits == 0 || over == 0); seq += 8) {
    const double gib = need_gib(seq);
    if (fits == 0 && gib > 75.0 && gib < 79.0)
      fits = seq;
    if (over == 0 && gib > 79.3 && gib < 79.6)
      over = seq;
  }
  ASSERT_NE(fits, 0);
  ASSERT_NE(over, 0);
  EXPECT_NO_THROW((void)parse(with(fits))) << need_gib(fits) << " GiB";
  try {
    (void)parse(with(over));
    ADD_FAILURE() << need_gib(over) << " GiB was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("has 79.3 GiB for them (79.6 GiB, less 0.4 GiB for the CUDA context)"),
        std::string::npos)
        << e.what();
  }
}

TEST(ScenarioLoader, ErrorsCarryFileLineColumnAndKey) {
  std::string text = kBase;
  text.replace(text.find("seq_len"), 7, "seq_lne");
  try {
    (void)parse(text);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "test.yaml");
    EXPECT_EQ(e.where().line, 8);
    EXPECT_EQ(e.where().column, 3);
    EXPECT_EQ(e.key(), "workload.seq_len");
    EXPECT_EQ(e.message(),
              "missing required key (expected the sequence length in tokens); \"seq_lne\" here looks "
              "like a misspelling of it");
  }
}

namespace {

/// The message of the error parsing `text` throws, or "no error".
std::string error_of(const std::string& text) {
  try {
    (void)parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

} // namespace

TEST(ScenarioLoader, RefusesMoreMicroBatchesPerReplicaThanItsBudget) {
  // 2^30 sequences of one per micro-batch over 2 replicas: 2^29 micro-batches each (6 GiB of plan in 10 s).
  const auto msg = error_of(with(kBase, "global_batch: 64", "global_batch: 1073741824"));
  EXPECT_NE(msg.find("test.yaml:9:17: error: workload.global_batch: asks each data-parallel replica for "
                     "536870912 micro-batches"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("at most 65536"), std::string::npos) << msg;
  // 16,384 micro-batches per replica, and the limit itself, pass.
  EXPECT_NO_THROW((void)parse(with(kBase, "global_batch: 64", "global_batch: 32768")));
  EXPECT_NO_THROW((void)parse(with(kBase, "global_batch: 64", "global_batch: 131072")));
  EXPECT_NE(error_of(with(kBase, "global_batch: 64", "global_batch: 131074")).find("micro-batches"),
            std::string::npos);
}

TEST(ScenarioLoader, RefusesAPlanOfMoreTasksThanItsBudget) {
  // ZeRO-3 gathers and scatters around each of the 40 layers: 65,536 micro-batches x 2 passes x 160 tasks.
  const auto zero3 = with(with(kBase, "global_batch: 64", "global_batch: 131072"), "micro_batch: 1",
                          "micro_batch: 1\n  zero: 3");
  const auto msg = error_of(zero3);
  EXPECT_NE(msg.find("workload.global_batch: plans 21.0 million tasks"), std::string::npos) << msg;
  EXPECT_NE(msg.find("at most 16 million"), std::string::npos) << msg;
  // A quarter of it passes.
  EXPECT_NO_THROW((void)parse(with(zero3, "global_batch: 131072", "global_batch: 32768")));
}

TEST(ScenarioLoader, PassesAHundredThousandGpus) {
  // 12,544 nodes of 8 GPUs: tp 8 x pp 8 x dp 1,568, three tiers, 16 micro-batches per replica.
  auto big = with(with(kBase, "nodes: 2", "nodes: 12544"), "{tp: 8, dp: 2}", "{tp: 8, pp: 8, dp: 1568}");
  big =
      with(with(big, "global_batch: 64", "global_batch: 25088"), "latency: 1us}", "latency: 1us, tiers: 3}");
  const auto s = parse(big);
  EXPECT_EQ(s.cluster.nodes * s.cluster.gpus_per_node, 100352);
}

TEST(ScenarioLoader, BoundsTheNumberOfVariantsAndRunsARepeatedOneOnce) {
  // 19,000 named variants, refused past 1,000 once all are read (their reading time per variant is
  // bench/scenario_reader_benchmark.cpp's: constant across list lengths).
  std::string list = "offload:\n  baseline: rdma-nic\n  variants:\n";
  for (int i = 0; i < 19'000; ++i)
    list += fmt::format("    - {{name: v{}, placement: rdma-nic}}\n", i);
  const auto text = with(kBase, "offload: {baseline: host-tcp, variants: [rdma-nic, dpu, rdma-nic]}\n", list);
  const auto msg = error_of(text);
  EXPECT_NE(
      msg.find("test.yaml:15:5: error: offload.variants: 19001 variants, the baseline included; at most "
               "1000 are compared"),
      std::string::npos)
      << msg;
  // The same variant listed again runs once, however often.
  std::string repeated = "offload:\n  baseline: rdma-nic\n  variants: [";
  for (int i = 0; i < 20'000; ++i)
    repeated += "rdma-nic, ";
  repeated += "dpu]\n";
  const auto s =
      parse(with(kBase, "offload: {baseline: host-tcp, variants: [rdma-nic, dpu, rdma-nic]}\n", repeated));
  ASSERT_EQ(s.variants.size(), 2u);
  EXPECT_EQ(s.variants[1].name, "dpu");
}
