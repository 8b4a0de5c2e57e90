#include "models/catalog/catalog.hpp"
#include "sim/offload/variant.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <gtest/gtest.h>

using namespace dpusim;
using offload::Function;
using offload::Site;

namespace {
const catalog::Catalog& the_catalog() {
  return dpusim::testing::bundled_catalog();
}
} // namespace

TEST(Variant, PresetsPlaceEveryFunction) {
  const auto host = offload::parse_variant("host-tcp");
  for (auto f : offload::kFunctions)
    EXPECT_EQ(host.placement[f], Site::host);
  EXPECT_EQ(host.transport(), offload::Transport::host_tcp);
  const auto dpu = offload::parse_variant("dpu");
  EXPECT_TRUE(dpu.on_dpu);
  EXPECT_EQ(dpu.placement[Function::agents], Site::dpu_arm);
  EXPECT_EQ(dpu.transport(), offload::Transport::rdma);
}

TEST(Variant, ParsesPlacementChangesOnAPreset) {
  const auto v = offload::parse_variant("rdma-nic+storage=dpu_arm+agents=dpu_arm");
  EXPECT_EQ(v.placement[Function::storage], Site::dpu_arm);
  EXPECT_EQ(v.placement[Function::transport], Site::nic);
  EXPECT_TRUE(v.on_dpu); // something runs on Arm cores
  EXPECT_THROW((void)offload::parse_variant("rdma"), std::invalid_argument);
  EXPECT_THROW((void)offload::parse_variant("host-tcp+storage"), std::invalid_argument);
  EXPECT_THROW((void)offload::parse_variant("host-tcp+disk=nic"), std::invalid_argument);
  try {
    (void)offload::parse_variant("rdma-nc");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean \"rdma-nic\""), std::string::npos) << e.what();
  }
}

TEST(Variant, RejectsWhatTheDeviceOrTheTransportCannotDo) {
  offload::Requirements req;
  req.encryption = offload::Encryption::ipsec;
  req.overlay = true;
  req.agents = true;
  const auto& cx6 = *the_catalog().nic("connectx-6");
  const auto& bf3 = *the_catalog().nic("bluefield-3");
  // ConnectX-6 (HDR VPI) has no inline crypto.
  EXPECT_NE(offload::unsupported(offload::parse_variant("rdma-nic"), cx6, req).find("cannot run encryption"),
            std::string::npos);
  // A NIC has no Arm cores.
  EXPECT_NE(offload::unsupported(offload::parse_variant("rdma-nic+agents=dpu_arm"),
                                 *the_catalog().nic("connectx-7"), req)
                .find("no Arm cores"),
            std::string::npos);
  // RDMA bypasses host software: encryption must be inline.
  EXPECT_NE(offload::unsupported(offload::parse_variant("dpu+encryption=host"), bf3, req).find("inline"),
            std::string::npos);
  // TLS needs TCP.
  req.encryption = offload::Encryption::tls;
  EXPECT_NE(offload::unsupported(offload::parse_variant("dpu"), bf3, req).find("TLS"), std::string::npos);
  // All on the host is always possible; all offloaded is possible on a BlueField-3 with IPsec.
  req.encryption = offload::Encryption::ipsec;
  EXPECT_EQ(offload::unsupported(offload::parse_variant("host-tcp"), cx6, req), "");
  EXPECT_EQ(offload::unsupported(offload::parse_variant("dpu"), bf3, req), "");
}

TEST(Variant, AFrontEndDpuTakesStorageAndAgentsWithoutMakingTheTrainingNicsDpus) {
  // Each tray's storage port a BlueField beside ConnectX training NICs: storage and agents placed on
  // dpu_arm run there, so the variant keeps its NICs; a function the front-end does not take still
  // needs the training DPUs.
  const std::vector<Function> frontend{Function::storage, Function::agents};
  EXPECT_FALSE(offload::parse_variant("rdma-nic+storage=dpu_arm+agents=dpu_arm", frontend).on_dpu);
  EXPECT_TRUE(offload::parse_variant("rdma-nic+storage=dpu_arm+agents=dpu_arm").on_dpu);
  EXPECT_TRUE(offload::parse_variant("host-tcp+vswitch=dpu_arm", frontend).on_dpu);
  EXPECT_TRUE(offload::parse_variant("dpu", frontend).on_dpu); // a preset's device is its own

  offload::Requirements req;
  req.storage = true;
  req.agents = true;
  req.separate_storage_fabric = true;
  const auto& cx7 = *the_catalog().nic("connectx-7");
  const auto v = offload::parse_variant("rdma-nic+storage=dpu_arm+agents=dpu_arm", frontend);
  EXPECT_NE(offload::unsupported(v, cx7, req).find("no Arm cores"), std::string::npos)
      << offload::unsupported(v, cx7, req);
  EXPECT_NE(offload::unsupported(offload::parse_variant("dpu+storage=dpu_arm"),
                                 *the_catalog().nic("bluefield-3"), req)
                .find("cluster.storage.node_nic"),
            std::string::npos); // SNAP on the training DPUs cannot reach a separate storage fabric
  req.frontend = frontend;
  EXPECT_EQ(offload::unsupported(v, cx7, req), "");
}
