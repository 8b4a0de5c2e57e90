// The parsers of the formats `ingest` reads, on the fixtures of data/ (recorded ones and ones written in
// the tools' documented formats, see data/README.md): each test asserts the values the tool printed.
#include "../test_data.hpp"
#include "hw_calib/parsers/device_tools_parser.hpp"
#include "hw_calib/parsers/ethtool_parser.hpp"
#include "hw_calib/parsers/fio_parser.hpp"
#include "hw_calib/parsers/iperf3_parser.hpp"
#include "hw_calib/parsers/lscpu_parser.hpp"
#include "hw_calib/parsers/nccl_tests_parser.hpp"
#include "hw_calib/parsers/openssl_speed_parser.hpp"
#include "hw_calib/parsers/parse_error.hpp"
#include "hw_calib/parsers/perftest_parser.hpp"
#include "hw_calib/parsers/rdma_tools_parser.hpp"

#include <gtest/gtest.h>

using namespace dpusim::calib;
using dpusim::calib::testing::read_fixture;

namespace {

std::string error_of(auto&& parse) {
  try {
    parse();
  } catch (const ParseError& e) {
    return e.what();
  }
  return "no error";
}

// The text up to (and without) the line holding `marker`, as a log cut at a line end.
std::string cut_before(const std::string& text, const std::string& marker) {
  const auto pos = text.find(marker);
  return text.substr(0, text.rfind('\n', pos) + 1);
}

} // namespace

TEST(calib_NcclTestsRuns, ThreeCollectivesOfOneLog) {
  const auto runs = parse_nccl_tests_runs(read_fixture("nccl-tests/three-collectives-2.18-1node.txt"));
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].collective, "all_gather_perf");
  EXPECT_EQ(runs[1].collective, "all_reduce_perf");
  EXPECT_EQ(runs[2].collective, "reduce_scatter_perf");
  EXPECT_EQ(runs[1].version, "2.18.3");
  EXPECT_EQ(runs[1].ranks, 8);
  EXPECT_EQ(runs[1].hosts, std::set<std::string>{"dgx-h100-07"});
  ASSERT_EQ(runs[1].rows.size(), 14u);
  EXPECT_DOUBLE_EQ(runs[1].rows.back().size_bytes, 268435456);
  EXPECT_DOUBLE_EQ(runs[1].rows.back().best_busbw_Bps(), 394.65e9);
  EXPECT_DOUBLE_EQ(*runs[1].avg_busbw_Bps, 104.263e9);
  EXPECT_EQ(*runs[1].out_of_bounds, 0);
  EXPECT_EQ(runs[0].rows.front().redop, "none");
  EXPECT_EQ(*runs[0].rows.front().root, -1);
  // Run with -c 0: "#wrong" is N/A, not a count.
  EXPECT_FALSE(runs[2].rows.front().oop_wrong.has_value());
  EXPECT_DOUBLE_EQ(runs[2].rows.back().oop_time_s, 1068.12e-6);
  // parse_nccl_tests picks the all-reduce table out of the three.
  EXPECT_EQ(parse_nccl_tests(read_fixture("nccl-tests/three-collectives-2.18-1node.txt")).rows.size(), 14u);
}

TEST(calib_NcclTestsRuns, OlderLayoutWithoutRedopAndRootColumns) {
  const auto runs =
      parse_nccl_tests_runs(read_fixture("nccl-tests/all_gather_and_reduce_scatter-old-layout.txt"));
  ASSERT_EQ(runs.size(), 1u);
  const auto& r = runs.front();
  EXPECT_TRUE(r.collective.empty()); // neither printed nor to be inferred without the redop column
  EXPECT_EQ(r.ranks, 8);
  EXPECT_EQ(r.hosts, std::set<std::string>{"dgx-a100"});
  ASSERT_EQ(r.rows.size(), 5u);
  EXPECT_TRUE(r.rows[0].redop.empty());
  EXPECT_DOUBLE_EQ(r.rows[4].oop_busbw_Bps, 176.81e9);
  EXPECT_DOUBLE_EQ(*r.rows[4].ip_busbw_Bps, 177.84e9);
  EXPECT_DOUBLE_EQ(r.rows[4].oop_time_s, 664.21e-6);
}

TEST(calib_NcclTestsRuns, TheCollectiveIsInferredWhenNotPrinted) {
  // Without "# Collective test starting": sum, root -1 and busbw = 1.75 x algbw make it an all-reduce.
  const auto r = parse_nccl_tests(read_fixture("nccl-tests/all_reduce_perf-1node-8xh100.txt"));
  EXPECT_EQ(r.collective, "all_reduce_perf");
  EXPECT_TRUE(r.collective_inferred);
  EXPECT_EQ(*r.gpus_per_thread, 8);
}

TEST(calib_NcclTestsRuns, ALogCutAtALineEndIsIncomplete) {
  const std::string whole = read_fixture("nccl-tests/all_reduce_perf-1node-8xh100.txt");
  // Cut after the 16 MiB row: read as a complete run, its last row would give a bus bandwidth 23x too small.
  const std::string cut = cut_before(whole, "    33554432");
  const auto message = error_of([&] { (void)parse_nccl_tests(cut); });
  EXPECT_NE(message.find("the log is incomplete"), std::string::npos) << message;
  EXPECT_NE(message.find("16777216 B row"), std::string::npos) << message;
  // Cut inside a line: the row has too few columns, and the message says the log ends there.
  const std::string mid = whole.substr(0, whole.find("    33554432") + 40);
  const auto mid_message = error_of([&] { (void)parse_nccl_tests(mid); });
  EXPECT_NE(mid_message.find("cut short"), std::string::npos) << mid_message;
  // The same log with its closing lines but no final newline is complete.
  std::string no_newline = whole;
  while (!no_newline.empty() && (no_newline.back() == '\n' || no_newline.back() == '#'))
    no_newline.pop_back();
  EXPECT_EQ(parse_nccl_tests(no_newline).rows.size(), 24u);
}

TEST(calib_NcclTestsRuns, ExtremeLinesAreQuotedShortly) {
  std::string row = "        1024           256     float     sum      -1";
  for (int i = 0; i < 5000; ++i)
    row += "  12.06";
  const auto message = error_of([&] { (void)parse_nccl_tests(row + "\n"); });
  EXPECT_NE(message.find("expected 9 or 13 columns"), std::string::npos) << message.substr(0, 300);
  EXPECT_LT(message.size(), 400u);
}

TEST(calib_PerftestMore, ReadBandwidthAndTheTestName) {
  const auto text = read_fixture("perftest/ib_read_bw-cx7-gbits.txt");
  EXPECT_EQ(parse_perftest_info(text).test, "RDMA_Read BW Test");
  const auto r = parse_perftest_bw(text);
  EXPECT_EQ(r.info.link_type, "IB");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(r.rows[2].bw_average_Bps, 372.96e9 / 8);
}

TEST(calib_PerftestMore, AServerLogOfAOneSidedTestHasNoRows) {
  const std::string server =
      "                    RDMA_Write BW Test\n"
      " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
      "---------------------------------------------------------------------------------------\n";
  const auto message = error_of([&] { (void)parse_perftest_bw(server); });
  EXPECT_NE(message.find("give the client's output"), std::string::npos) << message;
}

TEST(calib_PerftestMore, TabsTurnedIntoSpacesAndACutTable) {
  std::string text = read_fixture("perftest/ib_write_bw-cx7-gbits.txt");
  std::string spaces;
  for (const char c : text)
    spaces += c == '\t' ? std::string("        ") : std::string(1, c);
  EXPECT_EQ(parse_perftest_bw(spaces).rows.size(), 23u);
  EXPECT_EQ(parse_perftest_bw(spaces).info.device, "mlx5_0");
  const auto cut = cut_before(text, " 1048576 ");
  const auto message = error_of([&] { (void)parse_perftest_bw(cut); });
  EXPECT_NE(message.find("incomplete"), std::string::npos) << message;
}

TEST(calib_FioText, RecordedSequentialAndRandomReads) {
  const auto seq = parse_fio_text(read_fixture("fio/seqread-direct-1m.txt"));
  EXPECT_EQ(seq.version, "fio-3.33");
  ASSERT_EQ(seq.jobs.size(), 1u);
  const auto& j = seq.jobs.front();
  EXPECT_EQ(j.name, "dpusim-seqread");
  EXPECT_EQ(j.rw, "read");
  EXPECT_EQ(j.bs, "1024KiB");
  EXPECT_DOUBLE_EQ(j.read.iops, 1255);
  EXPECT_DOUBLE_EQ(j.read.bw_Bps, 1256.0 * 1048576);
  EXPECT_DOUBLE_EQ(j.read.io_bytes, 2513.0 * 1048576);
  EXPECT_DOUBLE_EQ(j.read.runtime_s, 2.001);
  EXPECT_DOUBLE_EQ(j.usr_cpu_percent, 0.15);
  EXPECT_DOUBLE_EQ(j.sys_cpu_percent, 8.50);
  const auto rnd = parse_fio_text(read_fixture("fio/randread-direct-4k.txt"));
  EXPECT_EQ(rnd.jobs.front().bs, "4096B");
  EXPECT_DOUBLE_EQ(rnd.jobs.front().read.iops, 17200); // "IOPS=17.2k"
  EXPECT_DOUBLE_EQ(rnd.jobs.front().read.bw_Bps, 67.3 * 1048576);
  // Cut before the job's result: no result line is an error, not a job of zero bandwidth.
  const auto cut = cut_before(read_fixture("fio/seqread-direct-1m.txt"), "  read: IOPS");
  EXPECT_NE(error_of([&] { (void)parse_fio_text(cut); }).find("incomplete"), std::string::npos);
}

TEST(calib_Iperf3, ClientTextNormalAndReverse) {
  const auto c = parse_iperf3(read_fixture("iperf3/client-text.txt"));
  ASSERT_EQ(c.tests.size(), 1u);
  EXPECT_FALSE(c.tests[0].server);
  EXPECT_TRUE(c.tests[0].local_sends());
  EXPECT_DOUBLE_EQ(*c.tests[0].sender_bps, 14.0e9);
  EXPECT_DOUBLE_EQ(*c.tests[0].receiver_bps, 13.9e9);
  EXPECT_EQ(c.tests[0].interval_bps.size(), 2u);
  EXPECT_FALSE(c.tests[0].local_cpu_percent.has_value());
  const auto r = parse_iperf3(read_fixture("iperf3/client-text-reverse.txt"));
  EXPECT_TRUE(r.tests[0].reverse);
  EXPECT_FALSE(r.tests[0].local_sends());
  EXPECT_DOUBLE_EQ(*r.tests[0].receiver_bps, 9.12e9);
  const auto v = parse_iperf3(read_fixture("iperf3/client-text-verbose.txt"));
  EXPECT_EQ(v.version, "iperf 3.12");
  EXPECT_DOUBLE_EQ(*v.tests[0].local_cpu_percent, 24.6);
  EXPECT_DOUBLE_EQ(*v.tests[0].remote_cpu_percent, 16.5);
  EXPECT_DOUBLE_EQ(*v.tests[0].sender_bps, 9.13e9);
}

TEST(calib_Iperf3, TwoStreamsTakeTheSumLines) {
  const auto r = parse_iperf3(read_fixture("iperf3/client-text-2streams-verbose.txt"));
  ASSERT_EQ(r.tests.size(), 1u);
  EXPECT_EQ(r.tests[0].streams, 2);
  EXPECT_DOUBLE_EQ(*r.tests[0].sender_bps, 12.4e9);
  EXPECT_DOUBLE_EQ(*r.tests[0].receiver_bps, 12.3e9);
  EXPECT_DOUBLE_EQ(*r.tests[0].local_cpu_percent, 27.9);
  ASSERT_EQ(r.tests[0].interval_bps.size(), 1u); // the [SUM] of the one interval
  EXPECT_DOUBLE_EQ(r.tests[0].interval_bps[0], 12.4e9);
}

TEST(calib_Iperf3, ServerLogEndingWithAnInterrupt) {
  const auto s = parse_iperf3(read_fixture("iperf3/server-text-interrupted.txt"));
  EXPECT_TRUE(s.interrupted);
  ASSERT_EQ(s.tests.size(), 2u);
  EXPECT_TRUE(s.tests[0].server);
  EXPECT_FALSE(s.tests[0].local_sends()); // test 1: the client sent
  EXPECT_DOUBLE_EQ(*s.tests[0].receiver_bps, 13.9e9);
  EXPECT_TRUE(s.tests[1].local_sends()); // test 2: the client ran with -R
  EXPECT_DOUBLE_EQ(*s.tests[1].sender_bps, 9.14e9);
}

TEST(calib_Iperf3, JsonOfClientServerAndReverse) {
  const auto c = parse_iperf3(read_fixture("iperf3/client-json.json"));
  EXPECT_TRUE(c.json);
  EXPECT_EQ(c.version, "iperf 3.12");
  EXPECT_NEAR(*c.tests[0].sender_bps, 13393904252.824778, 1e-3);
  EXPECT_NEAR(*c.tests[0].local_cpu_percent, 33.9411915686095, 1e-9);
  EXPECT_TRUE(c.tests[0].local_sends());
  const auto s = parse_iperf3(read_fixture("iperf3/server-json.json"));
  EXPECT_TRUE(s.tests[0].server);
  EXPECT_FALSE(s.tests[0].sender_bps.has_value()); // the server sent nothing
  EXPECT_NEAR(*s.tests[0].receiver_bps, 13367830828.546385, 1e-3);
  const auto r = parse_iperf3(read_fixture("iperf3/client-json-reverse.json"));
  EXPECT_TRUE(r.tests[0].reverse);
  EXPECT_FALSE(r.tests[0].local_sends());
  EXPECT_NEAR(*r.tests[0].receiver_bps, 11226896592.535727, 1e-3);
  // Cut short: no "end" section, or malformed JSON.
  const std::string json = read_fixture("iperf3/client-json.json");
  EXPECT_NE(error_of([&] { (void)parse_iperf3(json.substr(0, json.size() / 2)); }).find("malformed JSON"),
            std::string::npos);
}

TEST(calib_OpensslSpeed, RecordedAes256Gcm) {
  const auto r = parse_openssl_speed(read_fixture("openssl/speed-evp-aes-256-gcm.txt"));
  EXPECT_EQ(r.version, "3.0.19");
  EXPECT_EQ(r.processes, 1);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].algorithm, "AES-256-GCM");
  EXPECT_DOUBLE_EQ(r.rows[0].rate_Bps.at(16), 50140.02e3);
  EXPECT_DOUBLE_EQ(r.rows[0].rate_Bps.at(16384), 5601416.53e3);
  const auto cut = cut_before(read_fixture("openssl/speed-evp-aes-256-gcm.txt"), "AES-256-GCM ");
  EXPECT_NE(error_of([&] { (void)parse_openssl_speed(cut); }).find("no rows"), std::string::npos);
}

TEST(calib_Lscpu, TextJsonAndABlueFieldArmSide) {
  const auto t = parse_lscpu(read_fixture("lscpu/kvm-xeon.txt"));
  EXPECT_EQ(t.field("Model name"), "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(t.physical_cores(), 2);
  const auto j = parse_lscpu(read_fixture("lscpu/kvm-xeon.json"));
  EXPECT_TRUE(j.json);
  EXPECT_EQ(j.field("Model name"), "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(j.field("Architecture"), "x86_64");
  EXPECT_EQ(j.physical_cores(), 2);
  const auto a = parse_lscpu(read_fixture("lscpu/bf3-arm.txt"));
  EXPECT_EQ(a.field("Model name"), "Cortex-A78AE");
  EXPECT_EQ(a.physical_cores(), 16); // 16 cores per cluster, "Socket(s): -"
}

TEST(calib_Lscpu, CountsNoMachineHasGiveNoCoreCount) {
  // Their product would overflow: "Core(s) per socket" and "Socket(s)" of 2^62 are no counts.
  const auto r =
      parse_lscpu("Architecture: x86_64\nCPU(s): 8\nCore(s) per socket: 4611686018427387904\nSocket(s): 4\n");
  EXPECT_FALSE(r.physical_cores().has_value());
  EXPECT_EQ(parse_lscpu("Architecture: x86_64\nCPU(s): 224\nCore(s) per socket: 56\nSocket(s): 2\n")
                .physical_cores(),
            112);
}

TEST(calib_EthtoolDriver, RecordedVirtio) {
  const auto d = parse_ethtool_driver_info(read_fixture("ethtool/virtio-eth0-i.txt"));
  EXPECT_EQ(d.driver, "virtio_net");
  EXPECT_EQ(d.bus_info, "0000:00:03.0");
  EXPECT_EQ(d.version, "1.0.0");
  EXPECT_TRUE(d.firmware_version.empty());
}

TEST(calib_RdmaTools, IbvDevinfoAndIbstat) {
  const auto d = parse_ibv_devinfo(read_fixture("rdma-tools/ibv_devinfo-cx7-roce.txt"));
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].name, "mlx5_0");
  EXPECT_EQ(d[0].fields.at("fw_ver"), "28.39.1002");
  ASSERT_EQ(d[0].ports.size(), 1u);
  EXPECT_EQ(d[0].ports[0].fields.at("active_mtu"), "4096 (5)");
  EXPECT_EQ(d[0].ports[0].fields.at("link_layer"), "Ethernet");
  EXPECT_EQ(d[1].ports[0].fields.at("state"), "PORT_DOWN (1)");
  const auto s = parse_ibstat(read_fixture("rdma-tools/ibstat-cx7-ndr-spaces-no-final-newline.txt"));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].name, "mlx5_1");
  EXPECT_EQ(s[0].fields.at("Firmware version"), "28.39.1002");
  EXPECT_EQ(s[1].ports[0].fields.at("Rate"), "400");
  EXPECT_EQ(s[1].ports[0].fields.at("Link layer"), "InfiniBand"); // the last line, without its newline
  // A device block cut before its port: incomplete.
  const auto cut =
      cut_before(read_fixture("rdma-tools/ibstat-cx7-ndr-spaces-no-final-newline.txt"), "Port 1:");
  EXPECT_NE(error_of([&] { (void)parse_ibstat(cut); }).find("no port"), std::string::npos);
  // A port number no HCA has (it would not fit the port's int): an error in both tools.
  EXPECT_NE(error_of([&] {
              (void)parse_ibstat("CA 'mlx5_0'\nPort 99999999999:\nState: Active\n");
            }).find("no port number from 0 to 255"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              (void)parse_ibv_devinfo("hca_id: mlx5_0\nport: 4294967297\n");
            }).find("no port number from 0 to 255"),
            std::string::npos);
}

TEST(calib_DeviceTools, TopologyMatrix) {
  const auto t = parse_nvidia_smi_topo(read_fixture("nvidia-smi/topo-m-8gpu-4nic.txt"));
  ASSERT_EQ(t.devices.size(), 12u);
  EXPECT_EQ(t.link.at("GPU0").at("GPU1"), "NV18");
  EXPECT_EQ(t.link.at("GPU3").at("NIC1"), "PIX");
  EXPECT_EQ(t.cpu_affinity.at("GPU5"), "56-111,168-223");
  EXPECT_EQ(t.numa_affinity.at("GPU5"), "1");
  EXPECT_EQ(t.nic_names.at("NIC2"), "mlx5_2");
  EXPECT_EQ(closest_nics(t, "GPU3"), std::vector<std::string>{"mlx5_1"});
  EXPECT_EQ(closest_nics(t, "GPU6"), std::vector<std::string>{"mlx5_3"});
}

TEST(calib_DeviceTools, MstStatus) {
  const auto m = parse_mst_status(read_fixture("mst/mst-status-v-bf3-cx7.txt"));
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[1].type, "BlueField3(rev:1)");
  EXPECT_EQ(m[1].pci, "3b:00.0");
  EXPECT_EQ(m[1].rdma, "mlx5_0");
  EXPECT_EQ(m[1].net, "net-ens1f0np0");
  EXPECT_EQ(m[2].pci, "18:00.0");
  EXPECT_NE(error_of([] {
              (void)parse_mst_status("MST modules:\n------------\n    MST PCI module loaded\n");
            }).find("mst status -v"),
            std::string::npos);
}

TEST(calib_Bfver, ReadsTheRealLayoutOneOrBothPartitionsInEitherOrder) {
  // A BlueField-3's `sudo bfver` as recorded (tests/hw_calib/data/README.md): the partition read, the
  // ATF, UEFI and BSP versions, the OS bundle.
  const auto b = parse_bfver(read_fixture("bfver/bf3-4.9.1.txt"));
  EXPECT_EQ(b.at("boot partition"), "mmcblk0boot1");
  EXPECT_EQ(b.at("partitions.mmcblk0boot1"), "/dev/mmcblk0boot1");
  EXPECT_EQ(b.at("ATF"), "v2.2(release):4.9.1-21-gfc25b08d9");
  EXPECT_EQ(b.at("UEFI"), "4.9.1-36-g0c3239837a");
  EXPECT_EQ(b.at("BSP"), "4.9.1.13442");
  EXPECT_EQ(b.at("mmcblk0boot1.BSP"), "4.9.1.13442");
  EXPECT_EQ(b.at("OS release"), "bf-bundle-2.9.1-40_24.11-ubuntu-22.04_prod");
  // Both partitions, partition 1 first: the plain versions are the first block's, each under its name.
  const auto both = parse_bfver(read_fixture("bfver/bf3-both-partitions.txt"));
  EXPECT_EQ(both.at("boot partition"), "mmcblk0boot1");
  EXPECT_EQ(both.at("BSP"), "4.9.1.13442");
  EXPECT_EQ(both.at("mmcblk0boot1.BSP"), "4.9.1.13442");
  EXPECT_EQ(both.at("mmcblk0boot0.BSP"), "4.10.0.13520");
  EXPECT_EQ(both.at("mmcblk0boot0.ATF"), "v2.2(release):4.10.0-41-gea03e14b3");
  // The other order: the same per-partition versions, the first block's plainly.
  std::string text = read_fixture("bfver/bf3-both-partitions.txt");
  const auto cut = text.find("--/dev/mmcblk0boot0");
  const auto os = text.find("OS Release");
  const std::string swapped = text.substr(cut, os - cut) + text.substr(0, cut) + text.substr(os);
  const auto other = parse_bfver(swapped);
  EXPECT_EQ(other.at("boot partition"), "mmcblk0boot0");
  EXPECT_EQ(other.at("BSP"), "4.10.0.13520");
  EXPECT_EQ(other.at("mmcblk0boot1.BSP"), "4.9.1.13442");
  EXPECT_EQ(other.at("mmcblk0boot0.BSP"), "4.10.0.13520");
  // A BlueField-4: SBIOS lines, no partition.
  const auto bf4 = parse_bfver(read_fixture("bfver/bf4-sbios.txt"));
  EXPECT_EQ(bf4.at("SBIOS"), "26.07.9999");
  EXPECT_EQ(bf4.at("SBIOS release date"), "20260728");
  EXPECT_EQ(bf4.count("boot partition"), 0u);
  // A BFB file whose UEFI version bfver could not read: what it printed.
  const auto file = parse_bfver(read_fixture("bfver/bfb-file-atf-only.txt"));
  EXPECT_EQ(file.at("boot partition"), "default.bfb");
  EXPECT_EQ(file.at("ATF"), "v2.2(release):4.10.0-41-gea03e14b3");
  EXPECT_EQ(file.count("UEFI"), 0u);
  // Not bfver, or a partition twice.
  EXPECT_THROW((void)parse_bfver("OS Release Version: x\n"), ParseError);
  EXPECT_THROW((void)parse_bfver(text.substr(0, os) + text.substr(0, cut)), ParseError);
}
