#include "models/core/input_error.hpp"
#include "sim/input/scenario_loader.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <gtest/gtest.h>

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
