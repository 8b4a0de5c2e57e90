#include "../test_data.hpp"
#include "hw_calib/discover/bluefield_detection.hpp"
#include "hw_calib/discover/core_clock.hpp"
#include "hw_calib/discover/machine_discovery.hpp"
#include "hw_calib/discover/machine_summary.hpp"
#include "hw_calib/discover/network_discovery.hpp"

#include <gtest/gtest.h>
#include <thread>

using namespace dpusim::calib;
using dpusim::calib::testing::data_path;

namespace {

MachineInfo discover_tree(const std::string& name) {
  DiscoverOptions o;
  o.root = data_path(name);
  o.run_tools = false;
  o.measure_clock = false;
  return discover_machine(o);
}

} // namespace

TEST(calib_Discover, BlueField3ArmSideInDpuMode) {
  const MachineInfo m = discover_tree("sysroot-bf3-arm");
  EXPECT_EQ(m.hostname, "dpu-bf3-0");
  EXPECT_EQ(m.cpu.architecture, "aarch64");
  EXPECT_EQ(m.cpu.model, "Cortex-A78AE");
  EXPECT_EQ(m.cpu.vendor, "ARM");
  EXPECT_EQ(m.cpu.physical_cores, 16);
  EXPECT_EQ(m.cpu.logical_cpus, 16);
  EXPECT_EQ(m.cpu.crypto_features, (std::vector<std::string>{"aes", "pmull", "sha2"}));
  ASSERT_EQ(m.numa.size(), 1u);
  EXPECT_DOUBLE_EQ(*m.numa[0].memory_bytes, 32505856.0 * 1024);
  EXPECT_EQ(m.bluefield.side, BlueFieldSide::arm);
  EXPECT_EQ(m.bluefield.generation, "BlueField-3");
  EXPECT_EQ(m.bluefield.mode, BlueFieldMode::dpu);
  EXPECT_EQ(m.role, "dpu_arm");
  ASSERT_EQ(m.rdma.size(), 2u);
  EXPECT_EQ(m.rdma[0].netdevs, (std::vector<std::string>{"p0"}));
  EXPECT_DOUBLE_EQ(*m.rdma[0].ports[0].rate_bps, 200e9);
  EXPECT_EQ(m.rdma[0].ports[0].link_layer, "Ethernet");
  // lo is left out; the other six interfaces are reported.
  EXPECT_EQ(m.nics.size(), 6u);
}

TEST(calib_Discover, HostWithBlueField3ModeUnknownWithoutMlxconfig) {
  const MachineInfo m = discover_tree("sysroot-host-bf3");
  EXPECT_EQ(m.cpu.model, "Intel(R) Xeon(R) Platinum 8480C");
  EXPECT_EQ(m.cpu.architecture, "x86_64");
  EXPECT_EQ(m.cpu.logical_cpus, 8);
  EXPECT_EQ(m.cpu.physical_cores, 4); // 2 sockets x 2 cores, 2 threads each
  EXPECT_EQ(m.cpu.sockets, 2);
  EXPECT_DOUBLE_EQ(*m.cpu.max_frequency_hz, 3.8e9);
  EXPECT_EQ(m.numa.size(), 2u);
  EXPECT_EQ(m.numa[1].cpus, "2-3,6-7");
  EXPECT_EQ(m.bluefield.side, BlueFieldSide::host);
  EXPECT_EQ(m.bluefield.mode, BlueFieldMode::unknown);
  EXPECT_NE(m.bluefield.evidence.find("mlxconfig"), std::string::npos);
  EXPECT_EQ(m.role, "host_cpu");
  const NetInterface& bf = m.nics[1]; // eno1, ens1f0np0, ens1f1np1
  EXPECT_EQ(bf.name, "ens1f0np0");
  EXPECT_DOUBLE_EQ(*bf.speed_bps, 200e9);
  ASSERT_TRUE(bf.pcie.has_value());
  EXPECT_EQ(*bf.pcie->width, 16);
  EXPECT_EQ(bf.pcie->speed, "32.0 GT/s PCIe");
  EXPECT_FALSE(m.nics[2].speed_bps.has_value()); // link down: speed -1
  EXPECT_EQ(m.rdma[1].ports[0].state, "1: DOWN");
}

TEST(calib_Discover, MlxconfigDecidesTheModeOnTheHost) {
  const MachineInfo m = discover_tree("sysroot-host-bf3");
  MlxconfigQuery q;
  q.mode = BlueFieldMode::separated_host;
  const auto info = detect_bluefield("x86_64", "", m.nics, m.rdma, q);
  EXPECT_EQ(info.side, BlueFieldSide::host);
  EXPECT_EQ(info.mode, BlueFieldMode::separated_host);
}

TEST(calib_Discover, ArmSideWithoutHostRepresentorsIsSeparatedHostMode) {
  MachineInfo m = discover_tree("sysroot-bf3-arm");
  std::erase_if(m.nics, [](const NetInterface& n) { return n.name == "pf0hpf" || n.name == "pf1hpf"; });
  const auto info = detect_bluefield("aarch64", "BlueField-3 DPU", m.nics, m.rdma, std::nullopt);
  EXPECT_EQ(info.side, BlueFieldSide::arm);
  EXPECT_EQ(info.mode, BlueFieldMode::separated_host);
  EXPECT_EQ(detect_bluefield("x86_64", "", {}, {}, std::nullopt).side, BlueFieldSide::none);
}

TEST(calib_Discover, FlattenedSummaryNestsWithoutClashes) {
  const MachineInfo m = discover_tree("sysroot-bf3-arm");
  const auto flat = flatten_machine(m);
  EXPECT_EQ(flat.at("cpu.model"), "Cortex-A78AE");
  EXPECT_EQ(flat.at("rdma.mlx5_0.port1.rate"), "200Gbps");
  EXPECT_EQ(flat.at("bluefield.mode"), "dpu");
  EXPECT_EQ(flat.at("nic.p0.pci_id"), "15B3:A2DC (BlueField-3 integrated ConnectX-7 network controller)");
  // No key may be both a value and a prefix of another key (the profile nests them as mappings).
  for (const auto& [k, v] : flat) {
    const auto next = flat.upper_bound(k);
    if (next != flat.end()) {
      EXPECT_NE(next->first.rfind(k + ".", 0), 0u) << k << " is also a prefix of " << next->first;
    }
  }
  const std::string text = render_machine_summary(m);
  EXPECT_NE(text.find("BlueField   arm side of a BlueField-3, mode dpu"), std::string::npos) << text;
}

TEST(calib_Discover, LiveMachineHasPlausibleValues) {
  DiscoverOptions o;
  o.clock_duration = std::chrono::milliseconds(100);
  const MachineInfo m = discover_machine(o);
  EXPECT_FALSE(m.cpu.model.empty());
  EXPECT_GE(m.cpu.physical_cores, 1);
  EXPECT_GE(m.cpu.logical_cpus, m.cpu.physical_cores);
  EXPECT_LE(m.cpu.logical_cpus, static_cast<int>(std::thread::hardware_concurrency()) * 2 + 1);
  EXPECT_EQ(m.role, "host_cpu");
#if defined(__x86_64__) || defined(__aarch64__)
  ASSERT_TRUE(m.measured_core_clock_hz.has_value());
  EXPECT_GT(*m.measured_core_clock_hz, 0.5e9);
  EXPECT_LT(*m.measured_core_clock_hz, 7e9);
#endif
}

TEST(calib_Discover, RdmaRateText) {
  EXPECT_DOUBLE_EQ(*parse_rdma_rate("400 Gb/sec (4X NDR)"), 400e9);
  EXPECT_DOUBLE_EQ(*parse_rdma_rate("2.5 Gb/sec (1X SDR)"), 2.5e9);
  EXPECT_FALSE(parse_rdma_rate("invalid").has_value());
}
