// `dpusim-calib ingest` as a user runs it: recorded outputs in, a profile the simulator's reader loads
// out, with the file's name and checksum in every parameter's source; every input error is exit status
// 2 and leaves the output folder untouched.
#include "../test_data.hpp"
#include "hw_calib/common/process_runner.hpp"
#include "models/calibration/profile.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace dpusim::calib;
using dpusim::calib::testing::data_path;
using dpusim::calib::testing::ScratchDir;
namespace fs = std::filesystem;

namespace {

ProcessResult calib(std::vector<std::string> args) {
  args.insert(args.begin(), DPUSIM_CALIB_EXE);
  ProcessOptions o;
  o.timeout = std::chrono::seconds(60);
  return run_process(args, o);
}

std::string fixture(const std::string& relative) {
  return data_path(relative).string();
}

} // namespace

TEST(calib_IngestCli, RecordedOutputsBecomeALoadableProfile) {
  const ScratchDir out;
  // A copy under another name: the format comes from the content.
  const auto renamed = out.path() / "notes.log";
  fs::copy_file(data_path("perftest/ib_write_bw-cx7-gbits.txt"), renamed);
  const auto r =
      calib({"ingest", fixture("nccl-tests/all_reduce_perf-2node-cx7-mpirun.txt"), renamed.string(),
             fixture("perftest/ib_write_lat-cx7.txt"), fixture("fio/seqread-direct-1m.txt"),
             fixture("fio/randread-direct-4k.json"), fixture("iperf3/client-json.json"),
             fixture("iperf3/server-json.json"), fixture("openssl/speed-evp-aes-256-gcm.txt"),
             fixture("lscpu/kvm-xeon.json"), fixture("nvidia-smi/topo-m-8gpu-4nic.txt"),
             fixture("rdma-tools/ibv_devinfo-cx7-roce.txt"), "--nccl-link-rate", "400Gbps", "--out",
             (out.path() / "profile").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto profile = dpusim::calibration::load_profile((out.path() / "profile/profile.yaml").string());
  EXPECT_TRUE(profile.complete);
  EXPECT_EQ(profile.role, "host_cpu");
  const auto* rdma = profile.find("nic.rdma_bandwidth");
  ASSERT_NE(rdma, nullptr);
  EXPECT_NEAR(rdma->value, 391.79e9 / 8, 1e3);
  EXPECT_NE(rdma->source.find("notes.log (sha256:"), std::string::npos) << rdma->source;
  for (const char* key :
       {"collective.allreduce_bus_bandwidth", "collective.network_efficiency", "collective.allreduce_latency",
        "nic.rdma_latency", "storage.read_bandwidth", "storage.random_read_iops",
        "host_cpu.tcp_tx_rate_per_core", "host_cpu.tcp_rx_rate_per_core", "host_cpu.aes_gcm_rate_per_core",
        "host_cpu.cores"})
    EXPECT_NE(profile.find(key), nullptr) << key;
  EXPECT_EQ(profile.machine.at("gpu.0.closest_nics"), "mlx5_0");
  EXPECT_EQ(profile.machine.at("rdma.mlx5_0.port1.active_mtu"), "4096 (5)");
  for (const char* raw : {"nccl", "rdma", "storage", "tcp", "crypto"})
    EXPECT_TRUE(fs::exists(out.path() / "profile/raw" / (std::string(raw) + ".csv"))) << raw;
  bool noted = false;
  for (const auto& n : profile.notes)
    noted = noted || n.find("notes.log: perftest bandwidth") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(calib_IngestCli, ABlueFieldArmSideIsTakenFromTheFiles) {
  const ScratchDir out;
  const auto r = calib({"ingest", fixture("lscpu/bf3-arm.txt"), fixture("bfver/bf3-4.9.1.txt"),
                        fixture("mst/mst-status-v-bf3-cx7.txt"), fixture("iperf3/client-text-verbose.txt"),
                        "--out", out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto profile = dpusim::calibration::load_profile((out.path() / "profile.yaml").string());
  EXPECT_EQ(profile.role, "dpu_arm");
  ASSERT_NE(profile.find("dpu_arm.cores"), nullptr);
  EXPECT_EQ(profile.find("dpu_arm.cores")->value, 16);
  EXPECT_NE(profile.find("dpu_arm.tcp_tx_rate_per_core"), nullptr);
  EXPECT_EQ(profile.machine.at("bluefield.versions.ATF"), "v2.2(release):4.9.1-21-gfc25b08d9");
}

TEST(calib_IngestCli, EveryInputErrorIsExitStatusTwoAndWritesNothing) {
  const ScratchDir dir;
  const auto out = dir.path() / "out";
  const auto empty = dir.path() / "empty.txt";
  std::ofstream(empty).close();
  const auto fifo = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string good = fixture("perftest/ib_write_bw-cx7-gbits.txt");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{empty.string()}, "empty.txt: is empty"},
      {{"/dev/zero"}, "/dev/zero, line 1: binary data"},
      {{fifo.string(), "--time-limit", "0.5"}, "nothing could be read within 0.5 s"},
      {{fixture("nccl-tests/all_reduce_perf-1gpu.txt")}, "single-GPU"},
      {{fixture("nccl-tests/all_reduce_perf-1node-8xh100.txt"), "--nccl-link-rate", "400Gbps"},
       "crossed no network"},
      {{(dir.path() / "missing.txt").string()}, "missing.txt: cannot open it"},
      {{good, good}, "give one file per parameter"},
      {{good, "--nccl-scope", "rings"}, "--nccl-scope \"rings\""},
      {{good, "--bogus"}, "unrecognised option"},
      {{"--out", out.string()}, "give at least one FILE"},
  };
  for (const auto& [args, expected] : cases) {
    std::vector<std::string> a{"ingest"};
    a.insert(a.end(), args.begin(), args.end());
    if (std::find(args.begin(), args.end(), "--out") == args.end()) {
      a.emplace_back("--out");
      a.push_back(out.string());
    }
    const auto r = calib(a);
    EXPECT_EQ(r.exit_code, 2) << expected << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << expected << "\n" << r.err;
    EXPECT_FALSE(fs::exists(out / "profile.yaml")) << expected;
  }
  // One bad file among good ones: still nothing written, and the bad one named.
  const auto mixed = calib({"ingest", good, empty.string(), "--out", out.string()});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("nothing was written"), std::string::npos) << mixed.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(calib_IngestCli, HelpStatesTheExitStatuses) {
  const auto r = calib({"ingest", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("2 usage or input error"), std::string::npos) << r.out;
  const auto top = calib({"--help"});
  EXPECT_NE(top.out.find("1 a probe failed at run time, 2 usage or input error"), std::string::npos)
      << top.out;
  EXPECT_NE(top.out.find("ingest"), std::string::npos);
}

TEST(calib_IngestCli, RunRefusesAnNcclOutputThatIsNotACompleteLog) {
  const ScratchDir dir;
  const auto cut = dir.path() / "cut.txt";
  {
    const std::string whole =
        dpusim::calib::testing::read_fixture("nccl-tests/all_reduce_perf-1node-8xh100.txt");
    std::ofstream(cut) << whole.substr(0, whole.find("    33554432"));
  }
  const std::vector<std::pair<std::string, std::string>> cases{
      {fixture("fio/seqread-direct-1m.json"), "this is fio --output-format=json output, not nccl-tests'"},
      {cut.string(), "the log is incomplete"},
      {"/dev/zero", "binary data"},
  };
  for (const auto& [file, expected] : cases) {
    const auto r =
        calib({"run", "--probes", "nccl", "--nccl-output", file, "--out", (dir.path() / "out").string()});
    EXPECT_EQ(r.exit_code, 2) << file << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "out")) << file;
  }
  const auto gpu =
      calib({"run", "--probes", "memory", "--gpu-csv", fixture("nccl-tests/all_reduce_perf-1gpu.txt"),
             "--out", (dir.path() / "out").string()});
  EXPECT_EQ(gpu.exit_code, 2) << gpu.out << gpu.err;
  EXPECT_NE(gpu.err.find("this is nccl-tests (*_perf) output, not dpusim-calib-gpu's CSV"), std::string::npos)
      << gpu.err;
}
