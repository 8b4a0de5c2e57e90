// Properties of whole iterations across fabrics and ECMP seeds: a rail-optimized fabric is never slower
// than a fat-tree for the same job (with PXN a ring's network hops stay on one rail), and a data-parallel
// ring hashed over several queue pairs per connection does not depend on ECMP luck.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <string>

using dpusim::testing::simulate;
using dpusim::testing::TempDir;

namespace {

struct Job {
  int nodes;
  int tp;
  int dp;
};

std::string scenario(const Job& j, const std::string& topology, int seed,
                     const std::string& communication = "", const std::string& fabric_extra = "") {
  return "name: fabric\ncluster:\n  nodes: " + std::to_string(j.nodes) +
         "\n  node: dgx-h100\n  nic: connectx-7\n"
         "  fabric: {topology: " +
         topology + ", tiers: 2, link: 400Gbps, latency: 1us, oversubscription: \"1:1\"" + fabric_extra +
         "}\n"
         "workload:\n  model: {layers: 8, hidden: 4096, heads: 32, vocab: 32000}\n  seq_len: 2048\n"
         "  global_batch: " +
         std::to_string(j.dp * 2) + "\n  micro_batch: 1\n  parallelism: {tp: " + std::to_string(j.tp) +
         ", dp: " + std::to_string(j.dp) + "}\n" + communication +
         "offload: {baseline: rdma-nic}\nseed: " + std::to_string(seed) + "\n";
}

} // namespace

TEST(FabricProperties, RailOptimizedIsNeverSlowerThanAFatTreeOnANonBlockingFabric) {
  TempDir tmp;
  // Several GPUs of a data-parallel group in each node (tp 1, 2, 4), and one (tp 8); leaves shared by
  // nodes (64 nodes) or not (16).
  for (const Job j : {Job{16, 1, 128}, Job{16, 2, 64}, Job{16, 4, 32}, Job{64, 2, 256}, Job{64, 8, 64}}) {
    for (int seed : {1, 2, 3}) {
      const std::string id =
          std::to_string(j.nodes) + "-" + std::to_string(j.tp) + "-" + std::to_string(seed);
      const double fat = simulate(tmp, "f" + id, scenario(j, "fat-tree", seed), "dp_comm_s");
      const double rail = simulate(tmp, "r" + id, scenario(j, "rail-optimized", seed), "dp_comm_s");
      EXPECT_LE(rail, fat * 1.001) << j.nodes << " nodes, tp " << j.tp << ", seed " << seed;
    }
  }
}

TEST(FabricProperties, WithoutPxnRingsCrossRailsAndARailOptimizedFabricLosesItsAdvantage) {
  // The behaviour PXN removes: a ring leaving each node through another NIC than it entered crosses
  // rails at every hop, so on a rail-optimized fabric each hop climbs to the spines.
  TempDir tmp;
  const Job j{16, 2, 64};
  const std::string off = "  communication: {pxn: false}\n";
  const double with = simulate(tmp, "with", scenario(j, "rail-optimized", 1), "dp_comm_s");
  const double without = simulate(tmp, "without", scenario(j, "rail-optimized", 1, off), "dp_comm_s");
  EXPECT_LT(with, without);
}

TEST(FabricProperties, QueuePairsPerConnectionTakeTheDataParallelRingOffEcmpLuck) {
  // 64 nodes of 8 GPUs, TP 8 x DP 64 on a 1:1 fat-tree: every ring crosses the spines between leaves.
  // With four queue pairs per connection (eight hashed paths per hop) the ring's time is the same for
  // every seed to 2%.
  TempDir tmp;
  const Job j{64, 8, 64};
  const std::string qps = "  communication: {qps_per_connection: 4}\n";
  double lo = 1e30;
  double hi = 0;
  for (int seed = 1; seed <= 7; ++seed) {
    const double t =
        simulate(tmp, "s" + std::to_string(seed), scenario(j, "fat-tree", seed, qps), "dp_comm_s");
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  }
  EXPECT_LE(hi, lo * 1.02) << "fastest " << lo << " s, slowest " << hi << " s";
}

TEST(FabricProperties, TheRunSaysWhenEcmpCollisionsSetTheRingsPace) {
  // NCCL's defaults (one queue pair per connection, two paths per hop): some seeds collide, and the run
  // says so with the factor; with four queue pairs no seed does.
  TempDir tmp;
  const Job j{64, 8, 64};
  int noted = 0;
  for (int seed = 1; seed <= 7; ++seed) {
    std::string out;
    simulate(tmp, "d" + std::to_string(seed), scenario(j, "fat-tree", seed), "dp_comm_s", &out);
    noted += out.find("note: ECMP:") != std::string::npos ? 1 : 0;
    std::string spread;
    simulate(tmp, "q" + std::to_string(seed),
             scenario(j, "fat-tree", seed, "  communication: {qps_per_connection: 4}\n"), "dp_comm_s",
             &spread);
    EXPECT_EQ(spread.find("note: ECMP:"), std::string::npos) << "seed " << seed << ":\n" << spread;
  }
  EXPECT_GE(noted, 1);
}

TEST(FabricProperties, AdaptiveRoutingIsNeverSlowerThanEcmpOnASymmetricFabric) {
  // InfiniBand (Quantum-2, whose adaptive routing the ConnectX-7 takes): the same data-parallel rings
  // hashed by destination, or sprayed.
  TempDir tmp;
  for (const Job j : {Job{64, 8, 64}, Job{16, 2, 64}}) {
    for (int seed : {1, 2, 3}) {
      const std::string id = std::to_string(j.nodes) + "-" + std::to_string(seed);
      const double hashed =
          simulate(tmp, "e" + id, scenario(j, "fat-tree", seed, "", ", switch: qm9700"), "dp_comm_s");
      const double sprayed =
          simulate(tmp, "a" + id, scenario(j, "fat-tree", seed, "", ", switch: qm9700, routing: adaptive"),
                   "dp_comm_s");
      EXPECT_LE(sprayed, hashed * 1.001) << j.nodes << " nodes, seed " << seed;
    }
  }
}

TEST(FabricProperties, PathPinningTakesTheRingOffEcmpLuckOnAFullyAllocatedFabric) {
  // TP 8 x DP 64 on 64 nodes: every ring hop crosses between two leaves, each leaf's flows to distinct
  // slices. Pinned, each has a spine of its own: the same time for every seed, never slower than
  // hashing, which collides for some seeds; the run says how it routed.
  TempDir tmp;
  const Job j{64, 8, 64};
  const std::string pinned = ", routing: pinned";
  double first = 0;
  int collided = 0;
  for (int seed = 1; seed <= 5; ++seed) {
    std::string out;
    const double pin = simulate(tmp, "p" + std::to_string(seed), scenario(j, "fat-tree", seed, "", pinned),
                                "dp_comm_s", &out);
    const double hashed =
        simulate(tmp, "h" + std::to_string(seed), scenario(j, "fat-tree", seed), "dp_comm_s");
    if (seed == 1)
      first = pin;
    EXPECT_DOUBLE_EQ(pin, first) << "seed " << seed;
    EXPECT_LE(pin, hashed * 1.001) << "seed " << seed;
    collided += hashed > pin * 1.05 ? 1 : 0;
    EXPECT_NE(out.find("note: routing: pinned"), std::string::npos) << out;
  }
  EXPECT_GE(collided, 1) << "no seed's hashing collided: the test shows nothing";
}

TEST(FabricProperties, TheBundledAdaptiveRoutingScenarioMakesItsClaim) {
  // scenarios/examples/moe-adaptive-routing.yaml: the ConnectX-7's connections are hashed, the
  // BlueField-3's sprayed; with routing: ecmp the two are the same, and without oversubscription the gain
  // shrinks.
  TempDir tmp;
  const std::string file = std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/moe-adaptive-routing.yaml";
  const std::string text = dpusim::testing::read_text(file);
  auto compare = [&](const std::string& name, const std::string& yaml) {
    const auto r = dpusim::testing::run_text(tmp, "compare", name, yaml);
    return std::make_pair(dpusim::testing::csv_rows(tmp.path() + "/" + name + "/comparison.csv"), r.out);
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    return dpusim::testing::replaced(text, from, to);
  };
  const auto [adaptive, out] = compare("adaptive", text);
  ASSERT_EQ(adaptive.size(), 2u);
  const auto& nic = adaptive[0];
  const auto& dpu = adaptive[1];
  EXPECT_EQ(dpu.at("variant"), "dpu");
  EXPECT_NE(out.find("note (dpu): routing: adaptive; the bluefield-3 places out-of-order Ethernet packets"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("note (rdma-nic): routing: adaptive asked for, but the connectx-7 does not"),
            std::string::npos)
      << out;
  const double ep_ratio = std::stod(nic.at("ep_comm_s")) / std::stod(dpu.at("ep_comm_s"));
  const double step_ratio = std::stod(nic.at("step_time_s")) / std::stod(dpu.at("step_time_s"));
  EXPECT_GT(ep_ratio, 1.3);
  EXPECT_LT(ep_ratio, 1.7);
  EXPECT_NEAR(step_ratio, 1.10, 0.03);
  EXPECT_NE(out.find("the fabric routes dpu's packets adaptively"), std::string::npos) << out;
  const auto [ecmp, ecmp_out] = compare("ecmp", replaced(", routing: adaptive", ""));
  ASSERT_EQ(ecmp.size(), 2u);
  EXPECT_NEAR(std::stod(ecmp[0].at("step_time_s")) / std::stod(ecmp[1].at("step_time_s")), 1.0, 1e-3);
  const auto [flat, flat_out] =
      compare("flat", replaced("oversubscription: \"2:1\"", "oversubscription: \"1:1\""));
  ASSERT_EQ(flat.size(), 2u);
  const double flat_ratio = std::stod(flat[0].at("step_time_s")) / std::stod(flat[1].at("step_time_s"));
  EXPECT_GT(flat_ratio, 1.0);
  EXPECT_LT(flat_ratio, step_ratio);
}
