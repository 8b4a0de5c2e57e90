// Parsers on recorded outputs: fio and ethtool were recorded on the development machine; perftest,
// nccl-tests, nvidia-smi, mlxconfig and the GPU helper's CSV are written in those tools' documented
// formats (see data/README.md).
#include "../test_data.hpp"
#include "hw_calib/parsers/ethtool_parser.hpp"
#include "hw_calib/parsers/fio_parser.hpp"
#include "hw_calib/parsers/gpu_probe_parser.hpp"
#include "hw_calib/parsers/mlxconfig_parser.hpp"
#include "hw_calib/parsers/nccl_tests_parser.hpp"
#include "hw_calib/parsers/nvidia_smi_parser.hpp"
#include "hw_calib/parsers/parse_error.hpp"
#include "hw_calib/parsers/perftest_parser.hpp"

#include <gtest/gtest.h>

using namespace dpusim::calib;
using dpusim::calib::testing::read_fixture;

TEST(calib_PerftestParser, WriteBandwidthInGbitPerSecond) {
  const auto r = parse_perftest_bw(read_fixture("perftest/ib_write_bw-cx7-gbits.txt"));
  EXPECT_EQ(r.info.test, "RDMA_Write BW Test");
  EXPECT_EQ(r.info.device, "mlx5_0");
  EXPECT_EQ(r.info.link_type, "Ethernet");
  ASSERT_EQ(r.rows.size(), 23u); // -a: 2 B .. 8 MiB
  EXPECT_EQ(r.rows.front().bytes, 2);
  EXPECT_EQ(r.rows.back().bytes, 8388608);
  EXPECT_EQ(r.rows.back().iterations, 5000);
  // The largest message runs near 392 Gb/s = 49 GB/s.
  EXPECT_NEAR(r.rows.back().bw_average_Bps * 8 / 1e9, 390, 5);
  EXPECT_GE(r.rows.back().bw_peak_Bps, r.rows.back().bw_average_Bps);
  EXPECT_GT(r.rows.front().msg_rate_mpps, 5);
}

TEST(calib_PerftestParser, SendBandwidthInMebibytesPerSecond) {
  const auto r = parse_perftest_bw(read_fixture("perftest/ib_send_bw-bf3-mbytes.txt"));
  EXPECT_EQ(r.info.test, "Send BW Test");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(r.rows[2].bw_average_Bps, 23712.55 * 1048576.0); // MB/sec in perftest is 2^20 B/s
}

TEST(calib_PerftestParser, LatencyTableWithPercentiles) {
  const auto r = parse_perftest_lat(read_fixture("perftest/ib_write_lat-cx7.txt"));
  EXPECT_EQ(r.info.test, "RDMA_Write Latency Test");
  ASSERT_EQ(r.rows.size(), 23u);
  EXPECT_NEAR(r.rows[0].t_typical_s, 1.02e-6, 1e-9);
  ASSERT_TRUE(r.rows[0].p99_s && r.rows[0].p999_s && r.rows[0].t_avg_s);
  EXPECT_NEAR(*r.rows[0].p99_s, 1.19e-6, 1e-9);
  EXPECT_NEAR(*r.rows[0].p999_s, 2.13e-6, 1e-9);
  EXPECT_GT(r.rows.back().t_typical_s, 100e-6); // 8 MiB at ~48 GB/s
}

TEST(calib_PerftestParser, OlderLatencyFormatWithoutPercentiles) {
  // perftest closes every table with a dashed line; without it the output is reported incomplete.
  const std::string text =
      " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]\n"
      " 2       1000          0.98           4.12         1.01   \n"
      "---------------------------------------------------------------------------------------\n";
  const auto r = parse_perftest_lat(text);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_FALSE(r.rows[0].p99_s.has_value());
  EXPECT_NEAR(r.rows[0].t_typical_s, 1.01e-6, 1e-12);
}

TEST(calib_PerftestParser, ErrorsSayWhatIsMissing) {
  try {
    (void)parse_perftest_bw(
        " Couldn't connect to 10.0.0.2:18515\n Unable to open file descriptor for socket connection\n");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("#bytes"), std::string::npos) << e.what();
  }
  const std::string truncated =
      " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
      " 65536      5000             391.12\n";
  EXPECT_THROW((void)parse_perftest_bw(truncated), ParseError);
}

TEST(calib_FioParser, RecordedSequentialAndRandomReads) {
  const auto seq = parse_fio_json(read_fixture("fio/seqread-direct-1m.json"));
  EXPECT_EQ(seq.version, "fio-3.33");
  ASSERT_EQ(seq.jobs.size(), 1u);
  const auto& j = seq.jobs[0];
  EXPECT_EQ(j.name, "dpusim-seqread");
  EXPECT_EQ(j.rw, "read");
  EXPECT_EQ(j.bs, "1M");
  EXPECT_EQ(j.error, 0);
  EXPECT_DOUBLE_EQ(j.read.bw_Bps, 2048417583);
  EXPECT_GT(j.read.runtime_s, 1.5);
  EXPECT_GT(j.read.io_bytes, 1e9);
  EXPECT_FALSE(j.read.clat_percentiles_s.empty());
  EXPECT_GT(j.sys_cpu_percent, 0);
  const auto rnd = parse_fio_json(read_fixture("fio/randread-direct-4k.json"));
  EXPECT_NEAR(rnd.jobs[0].read.iops, 25276.86, 0.01);
  EXPECT_EQ(rnd.jobs[0].bs, "4k");
  ASSERT_TRUE(rnd.jobs[0].read.clat_percentiles_s.contains(99.0));
  EXPECT_GT(rnd.jobs[0].read.clat_percentiles_s.at(99.0), rnd.jobs[0].read.clat_percentiles_s.at(50.0));
}

TEST(calib_FioParser, SkipsNotesBeforeJsonAndRejectsGarbage) {
  const std::string with_note = "note: both iodepth >= 1 and synchronous I/O engine are selected\n" +
                                read_fixture("fio/seqread-direct-1m.json");
  EXPECT_EQ(parse_fio_json(with_note).jobs.size(), 1u);
  EXPECT_THROW(
      (void)parse_fio_json("fio: pid=0, err=22/file:filesetup.c:805, func=open, error=Invalid argument\n"),
      ParseError);
  EXPECT_THROW((void)parse_fio_json("{\n  \"jobs\" : [ \n"), ParseError);
}

TEST(calib_NcclTestsParser, TwoNodesUnderMpirunWithTaggedOutput) {
  const auto r = parse_nccl_tests(read_fixture("nccl-tests/all_reduce_perf-2node-cx7-mpirun.txt"));
  EXPECT_EQ(r.version, "2.13.9");
  EXPECT_EQ(r.collective, "all_reduce_perf");
  EXPECT_EQ(r.ranks, 2);
  ASSERT_EQ(r.rows.size(), 31u); // 8 B .. 8 GiB
  EXPECT_EQ(r.rows.back().size_bytes, 8589934592.0);
  EXPECT_NEAR(r.rows.back().best_busbw_Bps() / 1e9, 47.2, 0.5); // 46-48 GB/s per NDR NIC
  EXPECT_NEAR(r.rows.back().oop_time_s, 0.182041, 1e-6);
  ASSERT_TRUE(r.avg_busbw_Bps.has_value());
  EXPECT_GT(*r.avg_busbw_Bps, 1e9);
}

TEST(calib_NcclTestsParser, SingleNodeEightGpus) {
  const auto r = parse_nccl_tests(read_fixture("nccl-tests/all_reduce_perf-1node-8xh100.txt"));
  EXPECT_EQ(r.ranks, 8);
  EXPECT_TRUE(r.version.empty());
  EXPECT_NEAR(r.rows.back().oop_busbw_Bps / r.rows.back().oop_algbw_Bps, 1.75, 0.01); // 2(n-1)/n
  EXPECT_GT(r.rows.back().best_busbw_Bps(), 360e9);
}

TEST(calib_NcclTestsParser, RejectsRowsWithTheWrongColumns) {
  EXPECT_THROW((void)parse_nccl_tests("# nothing here\n"), ParseError);
  try {
    (void)parse_nccl_tests("        1024   256  float  sum  -1  12.5  0.08\n");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(std::string(e.what()).find("expected 9 or 13 columns"), std::string::npos);
  }
}

TEST(calib_EthtoolParser, RecordedVirtioNicHasNoInlineCrypto) {
  const auto f = parse_ethtool_features(read_fixture("ethtool/virtio-eth0-k.txt"));
  EXPECT_EQ(f.interface, "eth0");
  EXPECT_TRUE(f.enabled("tcp-segmentation-offload"));
  EXPECT_TRUE(f.enabled("tx-checksum-ip-generic")); // a child feature, indented
  EXPECT_FALSE(f.supports("esp-hw-offload"));
  EXPECT_FALSE(inline_crypto_capabilities(f).any());
  EXPECT_EQ(inline_crypto_capabilities(f).describe(), "none");
}

TEST(calib_EthtoolParser, ConnectX7WithIpsecTlsMacsecOffload) {
  const auto f = parse_ethtool_features(read_fixture("ethtool/connectx7-crypto-k.txt"));
  const auto c = inline_crypto_capabilities(f);
  EXPECT_TRUE(c.ipsec);
  EXPECT_TRUE(c.tls_tx);
  EXPECT_TRUE(c.tls_rx); // "off" but not [fixed]: supported, switched off
  EXPECT_FALSE(f.enabled("tls-hw-rx-offload"));
  EXPECT_TRUE(c.macsec);
  EXPECT_EQ(c.describe(), "ipsec, tls-tx, tls-rx, macsec");
  EXPECT_THROW((void)parse_ethtool_features("Cannot get device features: Operation not supported\n"),
               ParseError);
}

TEST(calib_NvidiaSmiParser, QueryGpuCsv) {
  const auto gpus = parse_nvidia_smi_query(read_fixture("nvidia-smi/query-gpu-8xh100.csv"));
  ASSERT_EQ(gpus.size(), 8u);
  EXPECT_EQ(gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpus[0].pci_bus_id, "00000000:18:00.0");
  EXPECT_DOUBLE_EQ(*gpus[0].memory_total_bytes, 81559.0 * 1048576.0);
  EXPECT_EQ(*gpus[3].pcie_gen_current, 1);
  EXPECT_EQ(*gpus[3].pcie_gen_max, 5);
  EXPECT_EQ(*gpus[7].pcie_width_current, 16);
  EXPECT_DOUBLE_EQ(*gpus[7].max_sm_clock_hz, 1980e6);
  EXPECT_DOUBLE_EQ(*gpus[7].power_limit_w, 700.0);
  EXPECT_EQ(gpus[7].driver_version, "550.54.15");
}

TEST(calib_NvidiaSmiParser, NotAvailableFieldsAreAbsent) {
  const auto gpus = parse_nvidia_smi_query(read_fixture("nvidia-smi/query-gpu-not-supported.csv"));
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_FALSE(gpus[0].pcie_gen_current.has_value());
  EXPECT_FALSE(gpus[0].power_limit_w.has_value());
  EXPECT_EQ(*gpus[0].pcie_width_max, 16);
  EXPECT_THROW((void)parse_nvidia_smi_query("index, name\n0, A, extra\n"), ParseError);
  EXPECT_THROW((void)parse_nvidia_smi_query(
                   "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"),
               ParseError);
}

TEST(calib_NvidiaSmiParser, AnIndexOrPcieFieldOutOfRangeIsNotNvidiaSmisOutput) {
  // Found by fuzzing (UBSan: 1e18 does not fit an int): such a field is an error, not a conversion.
  const std::string header = "index, name, pcie.link.gen.max\n";
  for (const char* bad : {"1e18", "-1", "2.5", "nan"})
    EXPECT_THROW((void)parse_nvidia_smi_query(header + "0, NVIDIA H100 80GB HBM3, " + bad + "\n"), ParseError)
        << bad;
  EXPECT_EQ(*parse_nvidia_smi_query(header + "0, NVIDIA H100 80GB HBM3, 5\n").front().pcie_gen_max, 5);
}

TEST(calib_GpuProbeParser, DocumentedCsv) {
  const auto r = parse_gpu_probe_csv(read_fixture("gpu-probe/h100-sxm.csv"));
  EXPECT_EQ(r.format_version, 1);
  EXPECT_EQ(r.device_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.compute_capability, "9.0");
  EXPECT_EQ(r.rows_of("h2d_pinned").size(), 3u);
  EXPECT_EQ(r.rows_of("gemm_bf16").back().size, 8192);
  EXPECT_NEAR(r.rows_of("gemm_bf16").back().rate, 717.7e12, 1e9);
  EXPECT_THROW(
      (void)parse_gpu_probe_csv("# dpusim-calib-gpu 1\ntest,size,iterations,seconds,rate\nfft,1,1,1,1\n"),
      ParseError);
  EXPECT_THROW((void)parse_gpu_probe_csv("test,size,iterations,seconds,rate\n"), ParseError);
}

TEST(calib_MlxconfigParser, BlueFieldModes) {
  const auto dpu = parse_mlxconfig_query(read_fixture("mlxconfig/bf3-dpu-mode.txt"));
  EXPECT_EQ(dpu.device_type, "BlueField3");
  EXPECT_EQ(dpu.mode, BlueFieldMode::dpu);
  EXPECT_EQ(parse_mlxconfig_query(read_fixture("mlxconfig/bf3-separated-host.txt")).mode,
            BlueFieldMode::separated_host);
  EXPECT_EQ(parse_mlxconfig_query("-E- Failed to open device\n").mode, BlueFieldMode::unknown);
}
