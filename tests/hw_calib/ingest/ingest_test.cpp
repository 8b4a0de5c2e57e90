// `ingest` below the command line: every fixture is recognised from its content, the values reach the
// parameters a live run would write, and each malformed variant (empty, cut short, another tool's
// output, impossible values, a run that measured nothing) is an error naming the file and the line, or
// a warning with the parameter left out.
#include "../test_data.hpp"
#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/ingest/ingest.hpp"

#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace dpusim::calib;
using dpusim::calib::testing::read_fixture;

namespace {

IngestedFile ingest(const std::string& fixture, const IngestOptions& o = {}) {
  return ingest_text(fixture, read_fixture(fixture), o);
}

IngestedFile ingest_string(const std::string& text, const IngestOptions& o = {}) {
  return ingest_text("input.txt", text, o);
}

std::string error_of(const std::string& name, const std::string& text, const IngestOptions& o = {}) {
  try {
    (void)ingest_text(name, text, o);
  } catch (const InputFileError& e) {
    return e.what();
  }
  return "no error";
}

const dpusim::calibration::ProfileParam* param(const IngestedFile& f, const std::string& key) {
  for (const auto& p : f.result.params)
    if (p.key == key)
      return &p;
  return nullptr;
}

bool warned(const IngestedFile& f, const std::string& text) {
  for (const auto& w : f.warnings)
    if (w.find(text) != std::string::npos)
      return true;
  return false;
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  if (pos == std::string::npos)
    throw std::runtime_error("fixture lacks " + from);
  return text.replace(pos, from.size(), to);
}

} // namespace

TEST(calib_FormatDetection, EveryFixtureIsRecognisedFromItsContent) {
  const std::vector<std::pair<std::string, InputFormat>> cases{
      {"nccl-tests/all_reduce_perf-2node-cx7-mpirun.txt", InputFormat::nccl_tests},
      {"nccl-tests/all_reduce_perf-1node-8xh100.txt", InputFormat::nccl_tests},
      {"nccl-tests/three-collectives-2.18-1node.txt", InputFormat::nccl_tests},
      {"nccl-tests/all_gather_and_reduce_scatter-old-layout.txt", InputFormat::nccl_tests},
      {"perftest/ib_write_bw-cx7-gbits.txt", InputFormat::perftest_bw},
      {"perftest/ib_send_bw-bf3-mbytes.txt", InputFormat::perftest_bw},
      {"perftest/ib_read_bw-cx7-gbits.txt", InputFormat::perftest_bw},
      {"perftest/ib_write_lat-cx7.txt", InputFormat::perftest_lat},
      {"perftest/ib_send_lat-large-only.txt", InputFormat::perftest_lat},
      {"fio/seqread-direct-1m.json", InputFormat::fio_json},
      {"fio/seqread-direct-1m.txt", InputFormat::fio_text},
      {"fio/randread-direct-4k.txt", InputFormat::fio_text},
      {"iperf3/client-text.txt", InputFormat::iperf3_text},
      {"iperf3/server-text-interrupted.txt", InputFormat::iperf3_text},
      {"iperf3/client-json.json", InputFormat::iperf3_json},
      {"iperf3/server-json.json", InputFormat::iperf3_json},
      {"openssl/speed-evp-aes-256-gcm.txt", InputFormat::openssl_speed},
      {"ethtool/virtio-eth0-k.txt", InputFormat::ethtool_features},
      {"ethtool/virtio-eth0-i.txt", InputFormat::ethtool_driver},
      {"lscpu/kvm-xeon.txt", InputFormat::lscpu_text},
      {"lscpu/kvm-xeon.json", InputFormat::lscpu_json},
      {"lscpu/bf3-arm.txt", InputFormat::lscpu_text},
      {"nvidia-smi/query-gpu-8xh100.csv", InputFormat::nvidia_smi_query},
      {"nvidia-smi/topo-m-8gpu-4nic.txt", InputFormat::nvidia_smi_topo},
      {"nvidia-smi/table-8xh100-535.txt", InputFormat::nvidia_smi_table},
      {"rdma-tools/ibv_devinfo-cx7-roce.txt", InputFormat::ibv_devinfo},
      {"rdma-tools/ibstat-cx7-ndr-spaces-no-final-newline.txt", InputFormat::ibstat},
      {"mst/mst-status-v-bf3-cx7.txt", InputFormat::mst_status},
      {"bfver/bf3-4.9.1.txt", InputFormat::bfver},
      {"bfver/bf3-both-partitions.txt", InputFormat::bfver},
      {"bfver/bf4-sbios.txt", InputFormat::bfver},
      {"bfver/bfb-file-atf-only.txt", InputFormat::bfver},
  };
  for (const auto& [fixture, format] : cases) {
    const auto found = detect_format(read_fixture(fixture));
    ASSERT_TRUE(found.has_value()) << fixture;
    EXPECT_EQ(format_name(*found), format_name(format)) << fixture;
  }
}

TEST(calib_Ingest, NcclTestsTwoNodesGiveBusBandwidthLatencyAndEfficiency) {
  IngestOptions o;
  o.nccl_link_rate_Bps = 400e9 / 8;
  const auto f = ingest("nccl-tests/all_reduce_perf-2node-cx7-mpirun.txt", o);
  EXPECT_EQ(f.probe, "nccl");
  EXPECT_EQ(f.checksum.substr(0, 7), "sha256:");
  EXPECT_EQ(f.checksum.size(), 7u + 64u);
  const auto* bw = param(f, "collective.allreduce_bus_bandwidth");
  ASSERT_NE(bw, nullptr);
  EXPECT_NEAR(bw->value, 47.19e9, 0.01e9); // the 8 GiB row's busbw
  EXPECT_NE(bw->source.find("all_reduce_perf-2node-cx7-mpirun.txt"), std::string::npos) << bw->source;
  EXPECT_NE(bw->source.find(f.checksum.substr(0, 19)), std::string::npos) << bw->source;
  const auto* eff = param(f, "collective.network_efficiency");
  ASSERT_NE(eff, nullptr);
  EXPECT_NEAR(eff->value, bw->value / 50e9, 1e-12);
  const auto* lat = param(f, "collective.allreduce_latency");
  ASSERT_NE(lat, nullptr);
  EXPECT_GT(lat->value, 10e-6);
  EXPECT_LT(lat->value, 40e-6);
  // The shape the latency was measured on, from the log's rank lines: the simulator needs it.
  ASSERT_NE(param(f, "collective.allreduce_ranks"), nullptr);
  EXPECT_EQ(param(f, "collective.allreduce_ranks")->value, 2);
  ASSERT_NE(param(f, "collective.allreduce_nodes"), nullptr);
  EXPECT_EQ(param(f, "collective.allreduce_nodes")->value, 2);
}

TEST(calib_Ingest, NcclTestsWithoutRankLinesGiveNoShapeAndSaySo) {
  std::string text = read_fixture("nccl-tests/all_reduce_perf-1node-8xh100.txt");
  const auto f = ingest_string(text);
  ASSERT_NE(param(f, "collective.allreduce_ranks"), nullptr);
  EXPECT_EQ(param(f, "collective.allreduce_ranks")->value, 8);
  EXPECT_EQ(param(f, "collective.allreduce_nodes")->value, 1);
  // Without the "#  Rank" lines the latency stays, its shape does not.
  std::string bare;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.find("#  Rank") == std::string::npos)
      bare += line + "\n";
  const auto g = ingest_string(bare);
  EXPECT_NE(param(g, "collective.allreduce_latency"), nullptr);
  EXPECT_EQ(param(g, "collective.allreduce_ranks"), nullptr);
  EXPECT_EQ(param(g, "collective.allreduce_nodes"), nullptr);
  EXPECT_TRUE(warned(g, "collective.allreduce_ranks and .allreduce_nodes left out")) << g.warnings.size();
}

TEST(calib_Ingest, NcclTestsScopeIsChecked) {
  IngestOptions o;
  o.nccl_link_rate_Bps = 900e9;
  // All eight ranks on one host: no network in this run.
  EXPECT_NE(error_of("one-node.txt", read_fixture("nccl-tests/all_reduce_perf-1node-8xh100.txt"), o)
                .find("crossed no network"),
            std::string::npos);
  o.nccl_scope = "nvlink";
  const auto f = ingest("nccl-tests/all_reduce_perf-1node-8xh100.txt", o);
  ASSERT_NE(param(f, "collective.nvlink_efficiency"), nullptr);
  EXPECT_NEAR(param(f, "collective.nvlink_efficiency")->value, 367.67e9 / 900e9, 1e-12);
  EXPECT_EQ(param(f, "collective.network_efficiency"), nullptr);
}

TEST(calib_Ingest, NcclTestsThatMeasuredNothingAreErrors) {
  const auto single = error_of("one-gpu.txt", read_fixture("nccl-tests/all_reduce_perf-1gpu.txt"));
  EXPECT_NE(single.find("one-gpu.txt"), std::string::npos) << single;
  EXPECT_NE(single.find("single-GPU"), std::string::npos) << single;
  const std::string two = read_fixture("nccl-tests/all_reduce_perf-1node-8xh100.txt");
  // The largest size's bus bandwidth printed as 0.
  const auto zero =
      error_of("zero.txt", replace_once(two, "41206.2  208.46  364.81      0  40886.0  210.09  367.67",
                                        "41206.2  208.46    0.00      0  40886.0  210.09    0.00"));
  EXPECT_NE(zero.find("line 39"), std::string::npos) << zero;
  EXPECT_NE(zero.find("expected a positive GB/s"), std::string::npos) << zero;
  const auto negative =
      error_of("neg.txt", replace_once(two, "  12.06    0.08    0.15", "  12.06    0.08   -0.15"));
  EXPECT_NE(negative.find("line 16"), std::string::npos) << negative;
  EXPECT_NE(negative.find("negative bandwidth"), std::string::npos) << negative;
  const auto wrong = error_of(
      "wrong.txt", replace_once(two, "# Out of bounds values : 0 OK", "# Out of bounds values : 12 FAILED"));
  EXPECT_NE(wrong.find("12 wrong results"), std::string::npos) << wrong;
  const auto time =
      error_of("time.txt", replace_once(two, "  12.06    0.08    0.15", "   0.00    0.08    0.15"));
  EXPECT_NE(time.find("a time of 0 or below"), std::string::npos) << time;
}

TEST(calib_Ingest, NcclTestsLatencyNeedsSmallMessages) {
  // The all-gather run of the log starts at 1 MiB, the all-reduce at 8 B; drop the all-reduce rows below
  // 128 KiB and the latency is left out with a warning while the bus bandwidth stays.
  std::string text = read_fixture("nccl-tests/all_reduce_perf-1node-8xh100.txt");
  for (const char* size : {"        1024 ", "        2048 ", "        4096 ", "        8192 ",
                           "       16384 ", "       32768 ", "       65536 "}) {
    const auto pos = text.find(std::string("\n") + size);
    text.erase(pos + 1, text.find('\n', pos + 1) - pos);
  }
  const auto f = ingest_string(text);
  EXPECT_EQ(param(f, "collective.allreduce_latency"), nullptr);
  EXPECT_TRUE(warned(f, "collective.allreduce_latency left out")) << f.warnings.size();
  EXPECT_NE(param(f, "collective.allreduce_bus_bandwidth"), nullptr);
}

TEST(calib_Ingest, NcclTestsSeveralSweepsInOneTable) {
  // -d all: a sweep per data type in one table. The float sum sweep gives the parameters; the half one
  // goes to the raw samples under its own series.
  std::string text = read_fixture("nccl-tests/all_reduce_perf-1node-8xh100.txt");
  const std::string extra =
      "        1024           512      half     sum      -1    12.11    0.08    0.15      0"
      "    12.10    0.08    0.15      0\n"
      "  8589934592    4294967296      half     sum      -1  41990.5  204.57  358.00      0"
      "  41901.7  205.01  358.77      0\n";
  text = replace_once(text, "# Out of bounds values", extra + "# Out of bounds values");
  const auto f = ingest_string(text);
  EXPECT_DOUBLE_EQ(param(f, "collective.allreduce_bus_bandwidth")->value, 367.67e9);
  EXPECT_TRUE(warned(f, "holds 2 sweeps"));
  std::set<std::string> series;
  for (const auto& sample : f.result.samples.samples())
    series.insert(sample.series);
  EXPECT_EQ(series, (std::set<std::string>{"all_reduce_float_sum", "all_reduce_half_sum"}));
  // Within one sweep the size must go up: a repeated size is not one sweep.
  const std::string repeated =
      replace_once(read_fixture("nccl-tests/all_reduce_perf-1node-8xh100.txt"), "# Out of bounds values",
                   "        1024           256     float     sum      -1    12.06    0.08    "
                   "0.15      0    12.08    0.08    0.15      0\n# Out of bounds values");
  EXPECT_NE(error_of("repeat.txt", repeated).find("goes down or repeats"), std::string::npos);
}

TEST(calib_Ingest, NcclTestsOtherCollectivesAreRawSamplesOnly) {
  const auto f = ingest("nccl-tests/three-collectives-2.18-1node.txt");
  EXPECT_NEAR(param(f, "collective.allreduce_bus_bandwidth")->value, 394.65e9, 1);
  std::set<std::string> series;
  for (const auto& s : f.result.samples.samples())
    series.insert(s.series);
  EXPECT_EQ(series, (std::set<std::string>{"all_gather", "all_reduce", "reduce_scatter"}));
  const auto old = ingest("nccl-tests/all_gather_and_reduce_scatter-old-layout.txt");
  EXPECT_TRUE(old.result.params.empty());
  EXPECT_TRUE(warned(old, "no all-reduce table"));
}

TEST(calib_Ingest, PerftestWriteSendReadAndLatency) {
  const auto w = ingest("perftest/ib_write_bw-cx7-gbits.txt");
  EXPECT_NEAR(param(w, "nic.rdma_bandwidth")->value, 391.79e9 / 8, 1);
  const auto s = ingest("perftest/ib_send_bw-bf3-mbytes.txt");
  EXPECT_DOUBLE_EQ(param(s, "nic.rdma_send_bandwidth")->value, 23712.55 * 1048576.0);
  const auto r = ingest("perftest/ib_read_bw-cx7-gbits.txt");
  EXPECT_TRUE(r.result.params.empty());
  EXPECT_TRUE(warned(r, "no parameter is calibrated from RDMA read"));
  EXPECT_FALSE(r.result.samples.empty());
  const auto l = ingest("perftest/ib_write_lat-cx7.txt");
  ASSERT_NE(param(l, "nic.rdma_latency"), nullptr);
  EXPECT_NEAR(param(l, "nic.rdma_latency")->value, 1.02e-6, 0.05e-6);
  EXPECT_EQ(param(l, "nic.rdma_latency")->provenance, dpusim::calibration::Provenance::fitted);
  // A sweep that starts at 64 KiB has no small message: no latency, and a warning saying why.
  const auto big = ingest("perftest/ib_send_lat-large-only.txt");
  EXPECT_EQ(param(big, "nic.rdma_send_latency"), nullptr);
  EXPECT_TRUE(warned(big, "the smallest message is 65536 B"));
}

TEST(calib_Ingest, PerftestBadValues) {
  const std::string bw = read_fixture("perftest/ib_send_bw-bf3-mbytes.txt");
  std::string zero = replace_once(bw, "11131.63            11021.42", "0.00            0.00");
  zero = replace_once(zero, "23795.77            23560.17", "0.00            0.00");
  zero = replace_once(zero, "23949.68            23712.55", "0.00            0.00");
  EXPECT_NE(error_of("zero.txt", zero).find("expected a positive bandwidth"), std::string::npos);
  const auto negative = error_of("neg.txt", replace_once(bw, "23712.55", "-23712.55"));
  EXPECT_NE(negative.find("a negative value"), std::string::npos) << negative;
  // The test-name line removed: write and send cannot be told apart.
  EXPECT_NE(error_of("noname.txt", replace_once(bw, "Send BW Test", "")).find("no test name line"),
            std::string::npos);
}

TEST(calib_Ingest, FioTextAndJsonGiveTheStorageParameters) {
  const auto t = ingest("fio/seqread-direct-1m.txt");
  EXPECT_DOUBLE_EQ(param(t, "storage.read_bandwidth")->value, 1256.0 * 1048576);
  EXPECT_NEAR(param(t, "storage.read_rate_per_core")->value, 2513.0 * 1048576 / (0.0865 * 2.001), 1);
  const auto r = ingest("fio/randread-direct-4k.txt");
  EXPECT_DOUBLE_EQ(param(r, "storage.random_read_iops")->value, 17200);
  const auto j = ingest("fio/seqread-direct-1m.json");
  EXPECT_GT(param(j, "storage.read_bandwidth")->value, 1e8);
  // A random read job's completion-latency percentiles at queue depth 1 (JSON's clat_ns).
  const auto rj = ingest("fio/randread-direct-4k.json");
  ASSERT_NE(param(rj, "storage.read_latency_median"), nullptr);
  EXPECT_DOUBLE_EQ(param(rj, "storage.read_latency_median")->value, 33024e-9);
  EXPECT_DOUBLE_EQ(param(rj, "storage.read_latency_p99")->value, 109056e-9);
  // At queue depth 32 the latency holds the queueing: left out, and said why.
  const auto deep =
      ingest_string(replace_once(read_fixture("fio/randread-direct-4k.json"), "\"bs\" : \"4k\",",
                                 "\"bs\" : \"4k\",\n        \"iodepth\" : \"32\","));
  EXPECT_EQ(param(deep, "storage.read_latency_median"), nullptr);
  EXPECT_TRUE(warned(deep, "keeps 32 reads in flight"));
  // fio's normal output: its percentiles are not read, and the warning says to give the JSON.
  EXPECT_EQ(param(r, "storage.read_latency_median"), nullptr);
  EXPECT_TRUE(warned(r, "--output-format=json gives them"));
  // A job file: rw and bs in its [global] section ("global options"), not in the job's options.
  std::string global = read_fixture("fio/seqread-direct-1m.json");
  global = replace_once(global, "\"rw\" : \"read\",", "");
  global = replace_once(global, "\"jobs\" : [", "\"global options\" : {\"rw\" : \"read\"},\n  \"jobs\" : [");
  EXPECT_DOUBLE_EQ(param(ingest_string(global), "storage.read_bandwidth")->value,
                   param(j, "storage.read_bandwidth")->value);
  const auto err =
      error_of("err.txt", replace_once(read_fixture("fio/seqread-direct-1m.txt"), "err= 0", "err= 5"));
  EXPECT_NE(err.find("ended with error 5"), std::string::npos) << err;
}

TEST(calib_Ingest, Iperf3PerCoreRatesNeedTheCpuUtilisation) {
  const auto v = ingest("iperf3/client-text-verbose.txt");
  EXPECT_NEAR(param(v, "host_cpu.tcp_tx_rate_per_core")->value, 9.13e9 / 8 / 0.246, 1);
  const auto plain = ingest("iperf3/client-text.txt");
  EXPECT_TRUE(plain.result.params.empty());
  EXPECT_TRUE(warned(plain, "no CPU utilisation"));
  const auto server = ingest("iperf3/server-json.json");
  EXPECT_NEAR(param(server, "host_cpu.tcp_rx_rate_per_core")->value,
              13367830828.546385 / 8 / 0.28879880720806522, 1);
  IngestOptions arm;
  arm.role = "dpu_arm";
  const auto reverse = ingest("iperf3/client-json-reverse.json", arm);
  EXPECT_NEAR(param(reverse, "dpu_arm.tcp_rx_rate_per_core")->value,
              11226896592.535727 / 8 / 0.225701177151245, 1);
  const auto interrupted = ingest("iperf3/server-text-interrupted.txt");
  EXPECT_TRUE(warned(interrupted, "2 tests in this log"));
  // A client log cut before its summary.
  const auto cut = read_fixture("iperf3/client-text.txt");
  const auto message = error_of("cut.txt", cut.substr(0, cut.find("- - -")));
  EXPECT_NE(message.find("cut short"), std::string::npos) << message;
}

TEST(calib_Ingest, OpensslSpeedGivesTheAesGcmRatePerCore) {
  const auto f = ingest("openssl/speed-evp-aes-256-gcm.txt");
  EXPECT_DOUBLE_EQ(param(f, "host_cpu.aes_gcm_rate_per_core")->value, 5601416.53e3);
  EXPECT_EQ(f.result.tools.at("openssl"), "3.0.19");
  const auto other = ingest_string(
      replace_once(read_fixture("openssl/speed-evp-aes-256-gcm.txt"), "AES-256-GCM ", "AES-128-GCM "));
  EXPECT_TRUE(other.result.params.empty());
  EXPECT_TRUE(warned(other, "no AES-256-GCM row"));
}

TEST(calib_Ingest, OpensslSpeedMultiIsDividedByItsProcesses) {
  // openssl speed -multi 4: four forked children, their rates summed in the table.
  const std::string text =
      "Forked child 0\nForked child 1\nForked child 2\nForked child 3\n"
      "Got: +H:16:64:256:1024:8192:16384 from 0\n"
      "version: 3.0.19\n"
      "The 'numbers' are in 1000s of bytes per second processed.\n"
      "type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes\n"
      "aes-256-gcm     200560.08k   780593.68k  2755909.28k  8360482.12k 20616036.84k 22405666.12k\n";
  const auto f = ingest_string(text);
  EXPECT_DOUBLE_EQ(param(f, "host_cpu.aes_gcm_rate_per_core")->value, 22405666.12e3 / 4);
}

TEST(calib_Ingest, InventoryFilesFillTheMachineSection) {
  const auto cpu = ingest("lscpu/kvm-xeon.txt");
  EXPECT_EQ(param(cpu, "host_cpu.cores")->value, 2);
  EXPECT_EQ(cpu.machine.at("cpu.model"), "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(role_hint(InputFormat::lscpu_text, read_fixture("lscpu/bf3-arm.txt")), "dpu_arm");
  EXPECT_FALSE(role_hint(InputFormat::lscpu_text, read_fixture("lscpu/kvm-xeon.txt")).has_value());
  const auto topo = ingest("nvidia-smi/topo-m-8gpu-4nic.txt");
  EXPECT_EQ(topo.machine.at("gpu.3.closest_nics"), "mlx5_1");
  EXPECT_EQ(topo.machine.at("gpu.3.nic_path"), "PIX");
  EXPECT_EQ(topo.machine.at("gpu.3.nvlink"), "NV18");
  EXPECT_EQ(topo.machine.at("gpu.5.numa_node"), "1");
  const auto devinfo = ingest("rdma-tools/ibv_devinfo-cx7-roce.txt");
  EXPECT_EQ(devinfo.machine.at("rdma.mlx5_0.port1.active_mtu"), "4096 (5)");
  EXPECT_EQ(devinfo.machine.at("rdma.mlx5_0.port1.link_layer"), "Ethernet");
  EXPECT_EQ(devinfo.machine.at("rdma.mlx5_0.firmware"), "28.39.1002");
  const auto ibstat = ingest("rdma-tools/ibstat-cx7-ndr-spaces-no-final-newline.txt");
  EXPECT_EQ(ibstat.machine.at("rdma.mlx5_1.port1.rate"), "400Gbps");
  const auto mst = ingest("mst/mst-status-v-bf3-cx7.txt");
  EXPECT_EQ(mst.machine.at("bluefield.generation"), "BlueField-3");
  EXPECT_EQ(mst.machine.at("mst.3b:00_0.rdma"), "mlx5_0");
  const auto bf = ingest("bfver/bf3-4.9.1.txt");
  EXPECT_EQ(bf.machine.at("bluefield.versions.BSP"), "4.9.1.13442");
  EXPECT_EQ(bf.machine.at("bluefield.boot_partition"), "mmcblk0boot1");
  EXPECT_EQ(bf.machine.at("bluefield.partitions.mmcblk0boot1.UEFI"), "4.9.1-36-g0c3239837a");
  EXPECT_EQ(bf.machine.at("bluefield.os_release"), "bf-bundle-2.9.1-40_24.11-ubuntu-22.04_prod");
  const auto both = ingest("bfver/bf3-both-partitions.txt");
  EXPECT_EQ(both.machine.at("bluefield.partitions.mmcblk0boot0.BSP"), "4.10.0.13520");
  EXPECT_EQ(ingest("bfver/bf4-sbios.txt").machine.at("bluefield.versions.SBIOS_release_date"), "20260728");
  EXPECT_EQ(role_hint(InputFormat::bfver, read_fixture("bfver/bf3-4.9.1.txt")), "dpu_arm");
  const auto smi = ingest("nvidia-smi/table-8xh100-535.txt");
  EXPECT_EQ(smi.machine.at("gpu.count"), "8");
  EXPECT_EQ(smi.machine.at("gpu.7.name"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(smi.machine.at("gpu.3.pci"), "00000000:5D:00.0");
  EXPECT_EQ(smi.machine.at("gpu.0.memory"), "79.6475GiB"); // 81559 MiB
  EXPECT_EQ(smi.machine.at("gpu.driver"), "535.104.05");
  const auto eth = ingest("ethtool/virtio-eth0-i.txt");
  EXPECT_EQ(eth.machine.at("pci.0000:00:03_0.driver"), "virtio_net");
}

TEST(calib_Ingest, EmptyNoiseAndOtherFilesAreNamedErrors) {
  EXPECT_NE(error_of("empty.txt", "").find("empty.txt: is empty"), std::string::npos);
  EXPECT_NE(error_of("blank.txt", "\n\n   \n").find("is empty"), std::string::npos);
  const auto other =
      error_of("os-release", "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian\"\n");
  EXPECT_NE(other.find("os-release: is not the output of a tool dpusim-calib reads"), std::string::npos)
      << other;
  EXPECT_NE(other.find("PRETTY_NAME="), std::string::npos) << other;
  std::string noise;
  for (int i = 0; i < 3000; ++i)
    noise += static_cast<char>(1 + (i * 7919) % 254);
  const auto n = error_of("noise.bin", noise);
  EXPECT_NE(n.find("is not the output of a tool"), std::string::npos);
  EXPECT_LT(n.size(), 1200u); // the excerpt is short, the rest lists the accepted formats
  // nccl-tests rows alone (the lines around the table dropped): recognised, and refused as incomplete.
  const auto rows = error_of(
      "rows.txt", "        1024           256     float     sum      -1    12.06    0.08    0.15      0"
                  "    12.08    0.08    0.15      0\n");
  EXPECT_NE(rows.find("the log is incomplete"), std::string::npos) << rows;
  // Another tool's output where a format's marker line appears: a perftest header with no table.
  EXPECT_NE(error_of("cut.txt", "                    RDMA_Write BW Test\n Device : mlx5_0\n")
                .find("no result header"),
            std::string::npos);
}

// Whatever line a recorded output is cut at (at a line end or inside a line), ingesting it either fails
// with an InputFileError or gives exactly the values of the whole file: a cut never turns into a
// different number. Only the parameters both give are compared (a cut iperf3 server log may end at an
// earlier test of the other direction).
TEST(calib_Ingest, NoCutOfAFixtureGivesADifferentValue) {
  const std::vector<std::string> fixtures{"nccl-tests/all_reduce_perf-2node-cx7-mpirun.txt",
                                          "nccl-tests/all_reduce_perf-1node-8xh100.txt",
                                          "nccl-tests/three-collectives-2.18-1node.txt",
                                          "perftest/ib_write_bw-cx7-gbits.txt",
                                          "perftest/ib_send_bw-bf3-mbytes.txt",
                                          "perftest/ib_write_lat-cx7.txt",
                                          "fio/seqread-direct-1m.txt",
                                          "fio/randread-direct-4k.txt",
                                          "fio/seqread-direct-1m.json",
                                          "iperf3/client-text-verbose.txt",
                                          "iperf3/server-text-interrupted.txt",
                                          "iperf3/client-json.json",
                                          "iperf3/server-json.json",
                                          "openssl/speed-evp-aes-256-gcm.txt",
                                          "lscpu/kvm-xeon.txt",
                                          "lscpu/kvm-xeon.json"};
  int cuts = 0, refused = 0;
  for (const auto& fixture : fixtures) {
    const std::string whole = read_fixture(fixture);
    const auto full = ingest_text(fixture, whole, {});
    std::vector<std::size_t> positions;
    for (std::size_t pos = whole.find('\n'); pos != std::string::npos; pos = whole.find('\n', pos + 1)) {
      positions.push_back(pos + 1);
      const auto next = whole.find('\n', pos + 1);
      if (next != std::string::npos && next > pos + 2)
        positions.push_back(pos + 1 + (next - pos) / 2); // inside the next line
    }
    for (const auto at : positions) {
      if (at >= whole.size())
        continue;
      ++cuts;
      try {
        const auto part = ingest_text(fixture, whole.substr(0, at), {});
        for (const auto& p : part.result.params) {
          if (const auto* q = param(full, p.key)) {
            EXPECT_DOUBLE_EQ(p.value, q->value) << fixture << " cut at byte " << at << ": " << p.key;
          }
        }
      } catch (const InputFileError&) {
        ++refused;
      }
    }
  }
  EXPECT_GT(cuts, 500);
  EXPECT_GT(refused, cuts / 4); // most cuts of a table are caught as incomplete
}

// A line of 60 KiB (under the reader's 64 KiB limit) put into any fixture: whatever the parser makes of
// it, a message quotes no more than a short excerpt.
TEST(calib_Ingest, ALongLineInAnyFormatIsQuotedShortly) {
  const std::vector<std::string> fixtures{"nccl-tests/all_reduce_perf-1node-8xh100.txt",
                                          "perftest/ib_write_lat-cx7.txt",
                                          "fio/seqread-direct-1m.txt",
                                          "fio/seqread-direct-1m.json",
                                          "iperf3/client-text.txt",
                                          "iperf3/client-json.json",
                                          "openssl/speed-evp-aes-256-gcm.txt",
                                          "lscpu/kvm-xeon.txt",
                                          "ethtool/virtio-eth0-k.txt",
                                          "ethtool/virtio-eth0-i.txt",
                                          "nvidia-smi/topo-m-8gpu-4nic.txt",
                                          "nvidia-smi/query-gpu-8xh100.csv",
                                          "rdma-tools/ibv_devinfo-cx7-roce.txt",
                                          "rdma-tools/ibstat-cx7-ndr-spaces-no-final-newline.txt",
                                          "mst/mst-status-v-bf3-cx7.txt",
                                          "bfver/bf3-4.9.1.txt",
                                          "nvidia-smi/table-8xh100-535.txt"};
  const std::string junk = "  1024 " + std::string(60000, '7') + " float";
  for (const auto& fixture : fixtures) {
    const std::string whole = read_fixture(fixture);
    std::size_t at = 0;
    for (int k = 0; k < 12 && at != std::string::npos; ++k)
      at = whole.find('\n', at + 1);
    const std::string text =
        at == std::string::npos ? whole + "\n" + junk : whole.substr(0, at + 1) + junk + whole.substr(at);
    try {
      (void)ingest_text(fixture, text, {});
    } catch (const InputFileError& e) {
      EXPECT_LT(std::string(e.what()).size(), 1500u)
          << fixture << ": " << std::string(e.what()).substr(0, 200);
    }
  }
}

TEST(calib_IngestPerftest, ABidirectionalRunGivesNoOneDirectionBandwidth) {
  // `ib_write_bw -b` titles its table "RDMA_Write Bidirectional BW Test" and prints both directions'
  // sum: taking it as one direction's would double the NIC's rate.
  const auto one_way = ingest("perftest/ib_write_bw-cx7-gbits.txt");
  ASSERT_NE(param(one_way, "nic.rdma_bandwidth"), nullptr);
  const auto both = ingest_string(replace_once(read_fixture("perftest/ib_write_bw-cx7-gbits.txt"),
                                               "RDMA_Write BW Test", "RDMA_Write Bidirectional BW Test"));
  EXPECT_EQ(param(both, "nic.rdma_bandwidth"), nullptr);
  EXPECT_TRUE(warned(both, "bidirectional run (-b)"));
}

TEST(calib_IngestPerftest, TheWriteLatencysTailIsItsSmallestMessages99thPercentile) {
  const auto f = ingest("perftest/ib_write_lat-cx7.txt");
  const auto* p99 = param(f, "nic.rdma_latency_p99");
  ASSERT_NE(p99, nullptr);
  EXPECT_NEAR(p99->value, 1.19e-6, 1e-12); // the 2 B row's "99% percentile[usec]"
  // A percentile below the typical latency is no tail: the file is refused, naming the size.
  const auto bad =
      replace_once(read_fixture("perftest/ib_write_lat-cx7.txt"),
                   " 2       1000          0.99           5.47         1.02     \t       1.03        "
                   "\t0.02   \t\t1.19",
                   " 2       1000          0.99           5.47         1.02     \t       1.03        "
                   "\t0.02   \t\t0.50");
  EXPECT_NE(error_of("lat.txt", bad).find("below t_typical"), std::string::npos) << error_of("lat.txt", bad);
}
