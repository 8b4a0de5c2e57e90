#include "sim/offload/attribution.hpp"

#include <gtest/gtest.h>

using namespace dpusim;
using offload::Function;
using offload::Site;

TEST(Attribution, MovesOnlyTheFunctionsTheScenarioUses) {
  offload::Requirements req;
  req.encryption = offload::Encryption::ipsec;
  req.agents = true; // no storage, no overlay
  const auto base = offload::parse_variant("host-tcp");
  const auto target = offload::parse_variant("dpu");
  const auto moves = offload::function_moves(base, target, req);
  ASSERT_EQ(moves.size(), 3u);
  EXPECT_EQ(moves[0].function, Function::transport);
  EXPECT_EQ(moves[1].function, Function::encryption);
  EXPECT_EQ(moves[2].function, Function::agents);
  EXPECT_EQ(moves[2].from, Site::host);
  EXPECT_EQ(moves[2].to, Site::dpu_arm);
}

TEST(Attribution, AloneMovesOneFunctionFromTheBaselineAndLastMovesItBackOutOfTheTarget) {
  offload::Requirements req;
  req.storage = true;
  const auto base = offload::parse_variant("host-tcp");
  const auto target = offload::parse_variant("rdma-nic+storage=dpu_arm");
  const auto moves = offload::function_moves(base, target, req);
  ASSERT_EQ(moves.size(), 2u);
  const auto& storage = moves[1];
  EXPECT_EQ(storage.function, Function::storage);
  for (auto f : offload::kFunctions) {
    EXPECT_EQ(storage.alone.placement[f], f == Function::storage ? Site::dpu_arm : base.placement[f]);
    EXPECT_EQ(storage.last.placement[f], f == Function::storage ? Site::host : target.placement[f]);
  }
  // Both run on the target's device, so that the share is what the function buys on it.
  EXPECT_TRUE(storage.alone.on_dpu);
  EXPECT_TRUE(storage.last.on_dpu);
  EXPECT_EQ(storage.alone.name, "host-tcp+storage=dpu_arm");
  EXPECT_EQ(storage.last.name, "rdma-nic+storage=dpu_arm+storage=host");
}

TEST(Attribution, NothingToAttributeBetweenEqualPlacements) {
  const offload::Requirements req;
  const auto v = offload::parse_variant("rdma-nic");
  EXPECT_TRUE(offload::function_moves(v, v, req).empty());
  // Functions the scenario does not use do not count, even where their sites differ.
  EXPECT_EQ(
      offload::function_moves(offload::parse_variant("rdma-nic"), offload::parse_variant("dpu"), req).size(),
      0u);
}
