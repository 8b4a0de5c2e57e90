// The fit check's verdicts: a layout fits, fits only if the framework's interleaved schedule keeps no
// more micro-batches in flight than 1F1B (a warning), or does not fit (refused).
#include "models/base/input_error.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/scenario/rank_memory.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>

using namespace dpusim;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Llama 3 405B's 16,384-GPU layout (Dubey et al. 2024, Table 4): TP 8 x PP 16 x DP 128, 16 sequences of
// 8192 tokens per data-parallel rank, a layer fewer on the first and last stages.
std::string llama3_16k(int virtual_stages, int micro_batch = 1) {
  return fmt::format(R"(name: t
cluster:
  nodes: 2048
  node: dgx-h100
  fabric: {{topology: rail-optimized, link: 400Gbps, latency: 1us}}
workload:
  model: llama3-405b
  seq_len: 8192
  global_batch: {}
  micro_batch: {}
  sequence_parallel: true
  attention: flash
  zero: 1
  parallelism: {{tp: 8, pp: 16, dp: 128, first_stage_layers: 7, last_stage_layers: 7, virtual_stages: {}}}
offload: {{baseline: rdma-nic}}
)",
                     2048 * micro_batch, micro_batch, virtual_stages);
}

scenario::Scenario parse(const std::string& text) {
  return input::parse_scenario(yaml::parse_text(text, "test.yaml"), dpusim::testing::bundled_catalog());
}

double usable_h100() {
  return scenario::usable_gpu_memory(*dpusim::testing::bundled_catalog().gpu("h100-sxm"));
}

} // namespace

TEST(RankMemory, WithoutInterleavingBothCountsAreOne) {
  const auto s = parse(llama3_16k(1));
  const auto fit = scenario::memory_fit(s.workload, usable_h100());
  EXPECT_DOUBLE_EQ(fit.need.total(), fit.floor.total());
  EXPECT_EQ(fit.stage, fit.floor_stage);
  EXPECT_EQ(fit.verdict, scenario::MemoryFit::Verdict::fits);
  // Stage 1 (8 layers, 15 micro-batches in flight) is the most loaded: 77.6 GiB of 79.3.
  EXPECT_EQ(fit.stage, 1);
  EXPECT_NEAR(fit.need.total() / kGiB, 77.6, 0.05);
  EXPECT_NEAR(usable_h100() / kGiB, 79.25, 0.01);
}

TEST(RankMemory, MegatronsInterleavedWarmUpMakesTheFitUncertain) {
  const auto s = parse(llama3_16k(2)); // accepted: not refused
  const auto fit = scenario::memory_fit(s.workload, usable_h100());
  EXPECT_EQ(fit.verdict, scenario::MemoryFit::Verdict::uncertain);
  // 16 micro-batches = pp: Megatron's warm-up (2 x 14 + 16 + 1 = 45 chunks) exceeds the 32 chunks there
  // are, so stage 1 keeps all 16 micro-batches of its 8 layers: 63.5 GiB of activations, 81.6 GiB in all.
  EXPECT_NEAR(fit.need.activations / kGiB, 63.5, 0.05);
  EXPECT_NEAR(fit.need.total() / kGiB, 81.6, 0.05);
  EXPECT_NEAR(fit.floor.total() / kGiB, 77.6, 0.05);
  EXPECT_DOUBLE_EQ(fit.need.weights + fit.need.gradients + fit.need.optimizer,
                   fit.floor.weights + fit.floor.gradients + fit.floor.optimizer);
  const auto warning = scenario::memory_warning(fit, "h100-sxm");
  for (const char* part : {"needs 81.6 GiB (activations 63.5)", "each h100-sxm has 79.3 GiB",
                           "no more micro-batches in flight than 1F1B needs 77.6 GiB"})
    EXPECT_NE(warning.find(part), std::string::npos) << warning;
}

TEST(RankMemory, ARefusalCountsWhat1F1BKeepsAndSaysWhatInterleavingWouldAdd) {
  try {
    (void)parse(llama3_16k(2, 2));
    ADD_FAILURE() << "micro_batch 2 was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("does not fit in GPU memory"), std::string::npos) << what;
    EXPECT_NE(what.find("this counts the micro-batches 1F1B keeps in flight; Megatron's interleaved "
                        "schedule keeps more"),
              std::string::npos)
        << what;
    // It proposes what the scenario does not do already: it runs ZeRO-1 with micro-batches of 2.
    EXPECT_NE(what.find("try recompute: full, a smaller micro_batch, more tensor or pipeline parallelism, or "
                        "a higher ZeRO stage (zero: 2 or 3)"),
              std::string::npos)
        << what;
  }
}

TEST(RankMemory, MoreInterleavingNeverNeedsLessThan1F1B) {
  for (int v : {2, 4}) {
    auto w = parse(llama3_16k(1)).workload;
    w.virtual_stages = v;
    const auto fit = scenario::memory_fit(w, usable_h100());
    EXPECT_GE(fit.need.total(), fit.floor.total()) << "v = " << v;
    EXPECT_DOUBLE_EQ(fit.floor.total(),
                     scenario::memory_fit(parse(llama3_16k(1)).workload, usable_h100()).floor.total());
  }
}
