// A calibration profile of other parts than the scenario's: names matched by their model tokens.
#include "sim/model/calibration_machine.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <gtest/gtest.h>

using namespace dpusim;

TEST(CalibrationMachine, APartIsNamedByTheTokensThatHoldADigit) {
  EXPECT_TRUE(model::names_the_part("Intel(R) Xeon(R) Platinum 8480C",
                                    "Intel Xeon Platinum 8480C (Sapphire Rapids, 56 cores)"));
  EXPECT_TRUE(model::names_the_part("AMD EPYC 7742 64-Core Processor", "AMD EPYC 7742 (Rome, 64 cores)"));
  EXPECT_TRUE(model::names_the_part("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80 GB (Hopper)"));
  EXPECT_TRUE(model::names_the_part("ConnectX-7", "NVIDIA ConnectX-7, one 400 Gb/s port"));
  EXPECT_TRUE(model::names_the_part("NVIDIA A100-SXM4-80GB", "NVIDIA A100 SXM4 80 GB (Ampere)"));
  EXPECT_FALSE(model::names_the_part("AMD EPYC 7B13 64-Core Processor", "Intel Xeon Platinum 8480C"));
  EXPECT_FALSE(model::names_the_part("NVIDIA A100-SXM4-80GB", "NVIDIA H100 SXM5 80 GB (Hopper)"));
  EXPECT_FALSE(model::names_the_part("ConnectX-6 Dx", "NVIDIA ConnectX-7, one 400 Gb/s port"));
  EXPECT_FALSE(
      model::names_the_part("Intel(R) Xeon(R) Processor", "Intel Xeon Platinum 8480C")); // cannot tell
}

TEST(CalibrationMachine, ThePartsThatDifferAreSaidAndMatchingOnesAreNot) {
  const auto& cat = dpusim::testing::bundled_catalog();
  scenario::Hardware hw;
  hw.cpu = *cat.cpu("xeon-8480c");
  hw.gpu = *cat.gpu("h100-sxm");
  hw.nic = *cat.nic("connectx-7");
  calibration::Profile p;
  p.role = "host_cpu";
  p.machine = {{"cpu.model", "Intel(R) Xeon(R) Platinum 8480C"},
               {"gpu.0.name", "NVIDIA H100 80GB HBM3"},
               {"nic.ens1f0np0.pci_id", "15b3:1021 (ConnectX-7)"}};
  EXPECT_TRUE(model::machine_differences(p, hw).empty());
  // A 2-core AMD VM's profile given to a DGX H100.
  p.machine = {{"cpu.model", "AMD EPYC 7B13 64-Core Processor"},
               {"gpu.0.name", "NVIDIA A100-SXM4-80GB"},
               {"gpu.1.name", "NVIDIA A100-SXM4-80GB"},
               {"nic.eth0.pci_id", "15b3:101d (ConnectX-6 Dx)"}};
  const auto d = model::machine_differences(p, hw);
  ASSERT_EQ(d.size(), 3u); // the CPU, the GPUs once, the NIC
  EXPECT_NE(
      d[0].find("host CPU is reported as \"AMD EPYC 7B13 64-Core Processor\", not the scenario's xeon-8480c"),
      std::string::npos)
      << d[0];
  EXPECT_NE(d[1].find("GPU is reported as \"NVIDIA A100-SXM4-80GB\""), std::string::npos) << d[1];
  EXPECT_NE(d[2].find("NIC is reported as \"ConnectX-6 Dx\""), std::string::npos) << d[2];
  // A profile of the DPU's Arm side says nothing of the host CPU.
  p.role = "dpu_arm";
  p.machine = {{"cpu.model", "Cortex-A78AE"}};
  EXPECT_TRUE(model::machine_differences(p, hw).empty());
}
