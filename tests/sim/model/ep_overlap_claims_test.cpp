// Megatron-Core's expert-parallel overlap (combined 1F1B): the bundled DeepSeek-V3 scenario makes its
// claims.
#include "tests/support/compare_columns.hpp"

#include <gtest/gtest.h>
#include <map>
#include <string>

using dpusim::testing::compare_ep;
using dpusim::testing::TempDir;

TEST(EpOverlapClaims, TheSteadyStateHidesItsAllToAllsAndTheNicDoesNotMatter) {
  // scenarios/examples/moe-a2a-overlap.yaml: the overlap takes the step to 0.92x the one without it and
  // the busiest stage's exposed all-to-alls to 0.55x, the computation unchanged; with four times the
  // micro-batches (a longer steady state) 0.89x. The BlueField-3 routed adaptively and InfiniBand take
  // the ConnectX-7's RoCE step within 0.3%. DualPipeV (schedule: dualpipev) takes 0.90x the interleaved
  // step without the overlap, 0.96x with it.
  TempDir tmp;
  const std::string text =
      dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/moe-a2a-overlap.yaml");
  const std::string overlap = "  overlap_ep_comm: true\n";
  const std::string batch = "  global_batch: 4096\n";
  const std::string fabric = "routing: adaptive}";
  const auto on = compare_ep(tmp, "on", text);
  const auto off = compare_ep(tmp, "off", dpusim::testing::replaced(text, overlap, ""));
  const auto long_on =
      compare_ep(tmp, "long_on", dpusim::testing::replaced(text, batch, "  global_batch: 16384\n"));
  const auto long_off =
      compare_ep(tmp, "long_off",
                 dpusim::testing::replaced(dpusim::testing::replaced(text, batch, "  global_batch: 16384\n"),
                                           overlap, ""));
  const auto ib =
      compare_ep(tmp, "ib", dpusim::testing::replaced(text, fabric, "routing: adaptive, switch: qm9700}"));
  // DualPipeV: the same chunks in a V.
  const std::string shaped = dpusim::testing::replaced(text, "pp: 16, virtual_stages: 2,",
                                                       "pp: 16, virtual_stages: 2, schedule: dualpipev,");
  const auto v_on = compare_ep(tmp, "v_on", shaped);
  const auto v_off = compare_ep(tmp, "v_off", dpusim::testing::replaced(shaped, overlap, ""));
  for (const auto* v : {"rdma-nic", "dpu"}) {
    EXPECT_NEAR(on.at(v).at("step_time_s") / off.at(v).at("step_time_s"), 0.92, 0.01) << v;
    EXPECT_NEAR(on.at(v).at("ep_comm_s") / off.at(v).at("ep_comm_s"), 0.55, 0.03) << v;
    EXPECT_DOUBLE_EQ(on.at(v).at("compute_s"), off.at(v).at("compute_s")) << v;
    EXPECT_NEAR(long_on.at(v).at("step_time_s") / long_off.at(v).at("step_time_s"), 0.89, 0.01) << v;
    EXPECT_NEAR(ib.at(v).at("step_time_s") / on.at("rdma-nic").at("step_time_s"), 1.0, 0.003) << v;
    // DualPipeV's smaller bubble (its zero-bubble weight steps included): 0.90x the interleaved step
    // without the overlap; with it, its few main steps at 32 micro-batches a replica leave it 0.96x the
    // interleaved overlapped step.
    EXPECT_NEAR(v_off.at(v).at("step_time_s") / off.at(v).at("step_time_s"), 0.90, 0.01) << v;
    EXPECT_NEAR(v_on.at(v).at("step_time_s") / on.at(v).at("step_time_s"), 0.96, 0.01) << v;
    EXPECT_LT(v_on.at(v).at("step_time_s"), v_off.at(v).at("step_time_s")) << v;
  }
  EXPECT_NEAR(on.at("dpu").at("step_time_s") / on.at("rdma-nic").at("step_time_s"), 1.0, 0.003);
}

TEST(EpOverlapClaims, ExpertsInsideAnNvl72RackStayOffTheNetwork) {
  // scenarios/examples/moe-nvl72-expert-parallel.yaml: EP 64 inside each GB200 NVL72 rack against 32 DGX
  // B200 servers (EP over 8 of them): the all-to-alls about 9x faster, the step 1.51x shorter; the overlap
  // saves 7% in the rack, 31% on the servers; the BlueField-3 takes the ConnectX-7's step.
  TempDir tmp;
  const std::string text = dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) +
                                                      "/scenarios/examples/moe-nvl72-expert-parallel.yaml");
  const std::string rack = "  nodes: 4\n  node: gb200-nvl72\n  gpus_per_node: 64\n";
  const std::string servers = "  nodes: 32\n  node: dgx-b200\n";
  const std::string overlap = "  overlap_ep_comm: true\n";
  const auto nvl = compare_ep(tmp, "nvl", text);
  const auto dgx = compare_ep(tmp, "dgx", dpusim::testing::replaced(text, rack, servers));
  const auto nvl_plain = compare_ep(tmp, "nvl_plain", dpusim::testing::replaced(text, overlap, ""));
  const auto dgx_plain =
      compare_ep(tmp, "dgx_plain",
                 dpusim::testing::replaced(dpusim::testing::replaced(text, rack, servers), overlap, ""));
  for (const auto* v : {"rdma-nic", "dpu"}) {
    // Without the overlap every all-to-all is exposed: their times' ratio.
    EXPECT_NEAR(dgx_plain.at(v).at("ep_comm_s") / nvl_plain.at(v).at("ep_comm_s"), 9.2, 0.5) << v;
    EXPECT_NEAR(dgx.at(v).at("step_time_s") / nvl.at(v).at("step_time_s"), 1.51, 0.02) << v;
    EXPECT_NEAR(nvl.at(v).at("step_time_s") / nvl_plain.at(v).at("step_time_s"), 0.93, 0.01) << v;
    EXPECT_NEAR(dgx.at(v).at("step_time_s") / dgx_plain.at(v).at("step_time_s"), 0.69, 0.01) << v;
  }
  EXPECT_NEAR(nvl.at("dpu").at("step_time_s") / nvl.at("rdma-nic").at("step_time_s"), 1.0, 1e-3);
}
