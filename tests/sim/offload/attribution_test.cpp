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

TEST(Differences, EachUsedFunctionWhoseSiteDiffersThenTheDevice) {
  offload::Requirements req;
  req.encryption = offload::Encryption::ipsec; // no storage, overlay or agents
  const auto a = offload::parse_variant("host-tcp");
  const auto b = offload::parse_variant("dpu"); // agents on the Arm cores: not used here
  const auto d = offload::differences(a, b, req);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].thing(), "transport");
  EXPECT_EQ(d[1].thing(), "encryption");
  EXPECT_EQ(d[2].thing(), "device");
  EXPECT_FALSE(d[2].from_dpu);
  EXPECT_TRUE(d[2].to_dpu);
  // The same placement on the NIC and on the DPU differs in the device alone.
  const auto nic = offload::parse_variant("rdma-nic");
  const auto on_dpu = offload::differences(nic, b, req);
  ASSERT_EQ(on_dpu.size(), 1u);
  EXPECT_EQ(on_dpu[0].thing(), "device");
  EXPECT_TRUE(offload::differences(nic, nic, req).empty());
}

TEST(Differences, SwitchedChangesOneThingOnly) {
  offload::Requirements req;
  req.encryption = offload::Encryption::ipsec;
  const auto a = offload::parse_variant("host-tcp");
  const auto b = offload::parse_variant("dpu");
  const auto d = offload::differences(a, b, req);
  const auto enc = offload::switched(a, d[1], true);
  EXPECT_EQ(enc.name, "host-tcp+encryption=nic");
  EXPECT_FALSE(enc.on_dpu);
  for (auto f : offload::kFunctions)
    EXPECT_EQ(enc.placement[f], f == Function::encryption ? Site::nic : a.placement[f]);
  const auto device = offload::switched(a, d[2], true);
  EXPECT_EQ(device.name, "host-tcp+device=dpu");
  EXPECT_TRUE(device.on_dpu);
  EXPECT_EQ(device.placement, a.placement);
  // Back on the second: the DPU variant with its transport on the host, still on the DPU.
  const auto back = offload::switched(b, d[0], false);
  EXPECT_EQ(back.placement[Function::transport], Site::host);
  EXPECT_TRUE(back.on_dpu);
  EXPECT_TRUE(back.moved.empty());
}
