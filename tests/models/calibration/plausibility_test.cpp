// A profile's measurements against their plausible ranges: the loaded VM's OS noise (71% of each core,
// p99 detour 8.1 ms) is named with its range and what it means; a quiet node's (1%, 10 us) is not; an
// RDMA bandwidth above the NIC port the machine reported is; two halves of a probe that disagree.
#include "models/calibration/plausibility.hpp"

#include <gtest/gtest.h>

using namespace dpusim::calibration;

namespace {

Profile with(std::initializer_list<std::pair<const char*, double>> values) {
  Profile p;
  for (const auto& [key, value] : values) {
    ProfileParam param;
    param.key = key;
    param.value = value;
    p.set(param);
  }
  return p;
}

} // namespace

TEST(Plausibility, TheLoadedMachinesOsNoiseIsNamedWithItsRangeAndMeaning) {
  const auto found =
      implausible_values(with({{"host_cpu.os_noise_fraction", 0.71}, {"host_cpu.os_noise_p99", 8.1e-3}}));
  ASSERT_EQ(found.size(), 2U);
  EXPECT_NE(found[0].find("host_cpu.os_noise_fraction = 71.0%"), std::string::npos) << found[0];
  EXPECT_NE(found[0].find("(at most 10.0%)"), std::string::npos) << found[0];
  EXPECT_NE(found[0].find("other work shared the probed cores"), std::string::npos) << found[0];
  EXPECT_NE(found[1].find("host_cpu.os_noise_p99"), std::string::npos) << found[1];
  EXPECT_NE(found[1].find("time slice"), std::string::npos) << found[1];
}

TEST(Plausibility, AQuietNodeAndTheDpusArmCoresPass) {
  EXPECT_TRUE(implausible_values(with({{"host_cpu.os_noise_fraction", 0.01},
                                       {"host_cpu.os_noise_p99", 10e-6},
                                       {"dpu_arm.os_noise_fraction", 0.03},
                                       {"dpu_arm.os_noise_p99", 200e-6}}))
                  .empty());
  EXPECT_EQ(implausible_values(with({{"dpu_arm.os_noise_fraction", 0.5}})).size(), 1U) << "every role";
}

TEST(Plausibility, AnRdmaBandwidthAboveTheReportedPortIsNamed) {
  auto p = with({{"nic.rdma_bandwidth", 96e9}}); // 768 Gb/s
  p.machine["nic.eth0.speed"] = "400Gbps";
  p.machine["nic.eth1.speed"] = "not a rate";
  const auto found = implausible_values(p);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_NE(found[0].find("above the fastest NIC port"), std::string::npos) << found[0];
  p = with({{"nic.rdma_bandwidth", 48e9}}); // 384 Gb/s on a 400 Gb/s port
  p.machine["nic.eth0.speed"] = "400Gbps";
  EXPECT_TRUE(implausible_values(p).empty());
  p = with({{"nic.rdma_bandwidth", 96e9}});
  EXPECT_TRUE(implausible_values(p).empty()) << "no port reported: no bound";
}

TEST(Plausibility, HalvesThatDisagreeAreUnstable) {
  EXPECT_TRUE(unstable_halves(0.008, 0.123, 0.005));
  EXPECT_TRUE(unstable_halves(0.123, 0.008, 0.005)) << "either order";
  EXPECT_FALSE(unstable_halves(0.010, 0.012, 0.005)) << "close";
  EXPECT_FALSE(unstable_halves(0.001, 0.003, 0.005))
      << "three times, but a fraction of a percentage point apart";
}
