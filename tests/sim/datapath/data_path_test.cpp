// Per-byte processor costs of each placement, from the catalog's per-core rates.
#include "models/catalog/catalog.hpp"
#include "sim/datapath/data_path.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

using namespace dpusim;
using datapath::End;
using datapath::Processor;
using offload::Function;

namespace {

const catalog::Catalog& the_catalog() {
  return dpusim::testing::bundled_catalog();
}

scenario::Hardware hardware(const std::string& device) {
  const auto& cat = the_catalog();
  scenario::Hardware hw;
  hw.node = *cat.node("dgx-h100");
  hw.gpu = *cat.gpu("h100-sxm");
  hw.cpu = *cat.cpu("xeon-8480c");
  hw.nic = *cat.nic(device);
  hw.collective = *cat.collective("nccl");
  return hw;
}

double total(const std::vector<datapath::CpuWork>& work, Function f, Processor p, End e) {
  double s = 0;
  for (const auto& w : work)
    if (w.function == f && w.processor == p && w.end == e)
      s += w.core_s;
  return s;
}

constexpr double kGB = 1e9;

} // namespace

TEST(DataPath, RdmaCostsNoProcessorTimePerByte) {
  const auto hw = hardware("connectx-7");
  const datapath::DataPath path(offload::parse_variant("rdma-nic"), {}, hw);
  EXPECT_TRUE(path.network_transfer(kGB).empty());
  EXPECT_EQ(path.software_latency_s(), 0.0);
  EXPECT_FALSE(path.through_arm());
}

TEST(DataPath, KernelTcpCostsEachEndItsPerCoreRate) {
  const auto hw = hardware("connectx-7");
  const datapath::DataPath path(offload::parse_variant("host-tcp"), {}, hw);
  const auto work = path.network_transfer(kGB);
  EXPECT_DOUBLE_EQ(total(work, Function::transport, Processor::host_cpu, End::sender),
                   kGB / hw.cpu.tcp_tx_rate_per_core.value.si());
  EXPECT_DOUBLE_EQ(total(work, Function::transport, Processor::host_cpu, End::receiver),
                   kGB / hw.cpu.tcp_rx_rate_per_core.value.si());
  EXPECT_DOUBLE_EQ(path.software_latency_s(), hw.cpu.tcp_latency_median.value.si());
}

TEST(DataPath, HostEncryptionAddsAesGcmOnBothEnds) {
  const auto hw = hardware("connectx-7");
  scenario::Services services;
  services.encryption = offload::Encryption::ipsec;
  const datapath::DataPath path(offload::parse_variant("host-tcp"), services, hw);
  const auto work = path.network_transfer(kGB);
  for (auto end : {End::sender, End::receiver})
    EXPECT_DOUBLE_EQ(total(work, Function::encryption, Processor::host_cpu, end),
                     kGB / hw.cpu.aes_gcm_rate_per_core.value.si());
  EXPECT_FALSE(path.crypto_engine());
}

TEST(DataPath, InlineEncryptionIsARateLimitNotProcessorTime) {
  const auto hw = hardware("connectx-7");
  scenario::Services services;
  services.encryption = offload::Encryption::ipsec;
  const datapath::DataPath path(offload::parse_variant("host-tcp+encryption=nic"), services, hw);
  const auto work = path.network_transfer(kGB);
  EXPECT_EQ(datapath::core_seconds(work, Processor::host_cpu)[static_cast<std::size_t>(Function::encryption)],
            0.0);
  ASSERT_TRUE(path.crypto_engine());
  EXPECT_DOUBLE_EQ(path.crypto_engine()->si(), hw.nic.offloads.ipsec_rate->value.si());
  services.encryption = offload::Encryption::tls;
  const datapath::DataPath tls(offload::parse_variant("host-tcp+encryption=nic"), services, hw);
  EXPECT_DOUBLE_EQ(tls.crypto_engine()->si(), hw.nic.offloads.tls_rate->value.si());
}

TEST(DataPath, ArmPlacedSwitchDetoursThroughTheArmCoresAndCostsThem) {
  const auto hw = hardware("bluefield-2");
  scenario::Services services;
  services.overlay = true;
  const datapath::DataPath path(offload::parse_variant("host-tcp+vswitch=dpu_arm"), services, hw);
  EXPECT_TRUE(path.through_arm());
  const auto work = path.network_transfer(kGB);
  EXPECT_DOUBLE_EQ(total(work, Function::vswitch, Processor::dpu_arm, End::sender),
                   kGB / hw.nic.arm->ovs_rate_per_core.value.si());
  EXPECT_EQ(total(work, Function::vswitch, Processor::host_cpu, End::sender), 0.0);
  // Two Arm forwarding hops add their software latency to the host's.
  EXPECT_DOUBLE_EQ(path.software_latency_s(),
                   hw.cpu.tcp_latency_median.value.si() + 2 * hw.nic.arm->tcp_latency_median.value.si());
}

TEST(DataPath, ArmEncryptionAlsoPaysForForwardingEachPacket) {
  const auto hw = hardware("bluefield-3");
  scenario::Services services;
  services.encryption = offload::Encryption::ipsec;
  const datapath::DataPath path(offload::parse_variant("host-tcp+encryption=dpu_arm"), services, hw);
  const auto work = path.network_transfer(kGB);
  const auto& arm = *hw.nic.arm;
  EXPECT_DOUBLE_EQ(total(work, Function::encryption, Processor::dpu_arm, End::receiver),
                   kGB / arm.aes_gcm_rate_per_core.value.si() + kGB / arm.ovs_rate_per_core.value.si());
}

TEST(DataPath, StorageReadsCostTheClientsPlacement) {
  const auto hw = hardware("bluefield-3");
  const auto host = datapath::DataPath(offload::parse_variant("host-tcp"), {}, hw).storage_read(kGB, 4);
  ASSERT_EQ(host.size(), 1U);
  EXPECT_EQ(host[0].processor, Processor::host_cpu);
  EXPECT_EQ(host[0].threads, 4);
  EXPECT_DOUBLE_EQ(host[0].core_s, kGB / hw.cpu.storage_client_rate_per_core.value.si());
  const datapath::DataPath snap(offload::parse_variant("rdma-nic+storage=dpu_arm"), {}, hw);
  EXPECT_TRUE(snap.storage_through_arm());
  const auto arm = snap.storage_read(kGB, 64);
  ASSERT_EQ(arm.size(), 1U);
  EXPECT_EQ(arm[0].processor, Processor::dpu_arm);
  EXPECT_EQ(arm[0].threads, hw.nic.arm->snap_cores->value); // SNAP's own cores, not the 64 readers
  EXPECT_DOUBLE_EQ(arm[0].core_s, kGB / hw.nic.arm->storage_client_rate_per_core.value.si());
  EXPECT_TRUE(datapath::DataPath(offload::parse_variant("rdma-nic"), {}, hw).storage_read(kGB, 4).empty());
}

TEST(DataPath, SnapPollsWithItsOwnCoresWhateverTheHostClientsConnections) {
  // SNAP's SPDK datapath runs on the cores of its core mask: the host NFS client's connection count
  // (cluster.storage.client_connections) must not change it. One connection once meant one Arm core.
  for (const char* dpu : {"bluefield-2", "bluefield-3"}) {
    SCOPED_TRACE(dpu);
    const auto hw = hardware(dpu);
    const datapath::DataPath snap(offload::parse_variant("rdma-nic+storage=dpu_arm"), {}, hw);
    const int cores = hw.nic.arm->snap_cores->value;
    EXPECT_EQ(snap.snap_threads(), cores);
    for (int connections : {1, 2, 4, 64}) {
      SCOPED_TRACE(connections);
      const auto write = snap.storage_write(kGB, connections);
      const auto read = snap.storage_read(kGB, connections);
      ASSERT_EQ(write.size(), 1U);
      ASSERT_EQ(read.size(), 1U);
      EXPECT_EQ(write[0].threads, cores);
      EXPECT_EQ(read[0].threads, cores);
      EXPECT_EQ(write[0].end, End::sender);
      EXPECT_DOUBLE_EQ(write[0].core_s, kGB / hw.nic.arm->storage_client_rate_per_core.value.si());
    }
  }
  // The host client keeps following its connections.
  const auto hw = hardware("bluefield-3");
  const datapath::DataPath host(offload::parse_variant("rdma-nic+storage=host"), {}, hw);
  EXPECT_EQ(host.storage_write(kGB, 1)[0].threads, 1);
  EXPECT_EQ(host.storage_write(kGB, 6)[0].threads, 6);
  EXPECT_EQ(host.snap_threads(), 0);
}

TEST(DataPath, SnapsParallelismGrowsWithItsCoresUpToTheArmCores) {
  // min(snap_cores, Arm cores): a larger core mask adds polling threads until the Arm complex has no
  // more cores (a profile's dpu_arm.cores may give fewer than the catalog's).
  auto hw = hardware("bluefield-3");
  const int arm_cores = hw.nic.arm->cores.value;
  int previous = 0;
  for (int k : {1, 2, 4, 8, 16, 32}) {
    SCOPED_TRACE(k);
    hw.nic.arm->snap_cores->value = k;
    const datapath::DataPath snap(offload::parse_variant("rdma-nic+storage=dpu_arm"), {}, hw);
    EXPECT_EQ(snap.snap_threads(), std::min(k, arm_cores));
    EXPECT_EQ(snap.storage_write(kGB, 1)[0].threads, std::min(k, arm_cores));
    EXPECT_GE(snap.snap_threads(), previous);
    previous = snap.snap_threads();
  }
  hw.nic.arm->snap_cores->value = 8;
  hw.nic.arm->cores.value = 3; // fewer Arm cores than SNAP's mask names
  EXPECT_EQ(datapath::DataPath(offload::parse_variant("rdma-nic+storage=dpu_arm"), {}, hw).snap_threads(), 3);
}

TEST(DataPath, CostsScaleLinearlyWithBytes) {
  const auto hw = hardware("bluefield-3");
  scenario::Services services;
  services.encryption = offload::Encryption::tls;
  services.overlay = true;
  const datapath::DataPath path(offload::parse_variant("host-tcp+vswitch=dpu_arm"), services, hw);
  const auto one = path.network_transfer(kGB);
  const auto three = path.network_transfer(3 * kGB);
  ASSERT_EQ(one.size(), three.size());
  for (std::size_t i = 0; i < one.size(); ++i)
    EXPECT_NEAR(three[i].core_s, 3 * one[i].core_s, 1e-12);
}

TEST(DataPath, SynchronousStepsWaitForTheSlowestOfTheirHops) {
  const auto hw = hardware("connectx-7");
  const datapath::DataPath path(offload::parse_variant("host-tcp"), {}, hw);
  const double median = hw.cpu.tcp_latency_median.value.si();
  EXPECT_NEAR(path.step_latency_s(1), median, 1e-12 * median); // one hop: its median
  double previous = median;
  for (int n : {2, 8, 64, 1024}) {
    const double s = path.step_latency_s(n);
    EXPECT_GT(s, previous) << n;
    previous = s;
  }
  // z(1024 / 1025) = 3.10: the tail of sigma = 0.5 multiplies the median by about 4.7.
  EXPECT_NEAR(path.step_latency_s(1024) / median, std::exp(0.5 * 3.0969), 0.01);
  EXPECT_EQ(datapath::DataPath(offload::parse_variant("rdma-nic"), {}, hw).step_latency_s(64), 0.0);
}
