// dpusim-calib as a user runs it: help and exit statuses, an end-to-end quick run whose profile loads,
// interruption leaving a valid incomplete profile, and `serve` as a loopback peer.
#include "../test_data.hpp"
#include "hw_calib/common/process_runner.hpp"
#include "hw_calib/common/text.hpp"
#include "models/calibration/profile.hpp"

#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace dpusim::calib;
using dpusim::calib::testing::ScratchDir;
namespace fs = std::filesystem;
using dpusim::calibration::load_profile;
using dpusim::calibration::Provenance;

namespace {

const std::string kExe = DPUSIM_CALIB_EXE;

ProcessResult calib(std::vector<std::string> args, int timeout_s = 120) {
  args.insert(args.begin(), kExe);
  ProcessOptions o;
  o.timeout = std::chrono::seconds(timeout_s);
  return run_process(args, o);
}

} // namespace

TEST(calib_Cli, HelpVersionAndUsageErrors) {
  const auto help = calib({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("discover"), std::string::npos);
  EXPECT_EQ(calib({"run", "--help"}).exit_code, 0);
  EXPECT_EQ(calib({"serve", "--help"}).exit_code, 0);
  EXPECT_EQ(calib({"discover", "--help"}).exit_code, 0);
  const auto version = calib({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("dpusim-calib ", 0), 0u);
  const auto bad = calib({"discovr"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("did you mean \"discover\""), std::string::npos) << bad.err;
  const auto bad_probe = calib({"run", "--out", "/tmp/unused", "--probes", "tcp,crypt"});
  EXPECT_EQ(bad_probe.exit_code, 2);
  EXPECT_NE(bad_probe.err.find("did you mean \"crypto\""), std::string::npos) << bad_probe.err;
  EXPECT_NE(bad_probe.err.find("valid probes: tcp, rdma, crypto"), std::string::npos);
  EXPECT_EQ(calib({"run", "--probes", "tcp"}).exit_code, 2); // --out is required
  const auto bad_size = calib({"run", "--out", "/tmp/unused", "--storage-size", "64MB/s"});
  EXPECT_EQ(bad_size.exit_code, 2);
  EXPECT_NE(bad_size.err.find("--storage-size"), std::string::npos);
  EXPECT_EQ(calib({"run", "--out", "/tmp/unused", "--bogus"}).exit_code, 2);
  const auto bad_peer = calib({"run", "--out", "/tmp/unused", "--peer", "node2:99999"});
  EXPECT_EQ(bad_peer.exit_code, 2);
  EXPECT_NE(bad_peer.err.find("1..65535"), std::string::npos) << bad_peer.err;
  // An invalid --duration is an error even where --quick replaces it; an empty --out is no directory.
  for (const char* duration : {"0", "nan", "4000"}) {
    const auto bad_duration = calib({"run", "--out", "/tmp/unused", "--quick", "--duration", duration});
    EXPECT_EQ(bad_duration.exit_code, 2) << duration;
    EXPECT_NE(bad_duration.err.find("must be in (0, 3600] seconds"), std::string::npos) << bad_duration.err;
  }
  const auto empty_out = calib({"run", "--out", "", "--probes", "tcp"});
  EXPECT_EQ(empty_out.exit_code, 2);
  EXPECT_NE(empty_out.err.find("--out needs a directory"), std::string::npos) << empty_out.err;
  EXPECT_EQ(calib({"discover", "--no-tools", "--out", ""}).exit_code, 2);
}

TEST(calib_Cli, DiscoverOnARecordedBlueFieldTree) {
  const ScratchDir out;
  const auto r =
      calib({"discover", "--sysroot", std::string(DPUSIM_SOURCE_DIR) + "/tests/hw_calib/data/sysroot-bf3-arm",
             "--no-tools", "--out", out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Role        dpu_arm"), std::string::npos) << r.out;
  const auto profile = load_profile((out.path() / "profile.yaml").string());
  EXPECT_EQ(profile.role, "dpu_arm");
  ASSERT_NE(profile.find("dpu_arm.cores"), nullptr);
  EXPECT_EQ(profile.find("dpu_arm.cores")->value, 16);
  EXPECT_EQ(profile.machine.at("bluefield.mode"), "dpu");
}

TEST(calib_Cli, QuickRunWritesALoadableProfileWithRawSamples) {
  const ScratchDir out;
  const auto r = calib({"run", "--probes", "tcp,crypto,memory,os-noise,storage,rdma", "--quick",
                        "--storage-tool", "builtin", "--storage-size", "32MiB", "--memcpy-size", "64MiB",
                        "--duration", "1", "--out", out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto profile = load_profile((out.path() / "profile.yaml").string());
  EXPECT_TRUE(profile.complete);
  EXPECT_EQ(profile.role, "host_cpu");
  for (const char* key :
       {"host_cpu.tcp_tx_rate_per_core", "host_cpu.tcp_rx_rate_per_core", "host_cpu.tcp_latency_median",
        "host_cpu.aes_gcm_rate_per_core", "host_cpu.cores", "host_cpu.core_clock",
        "host_cpu.memcpy_bandwidth", "host_cpu.os_noise_fraction", "storage.read_bandwidth"}) {
    const auto* p = profile.find(key);
    ASSERT_NE(p, nullptr) << key;
    EXPECT_TRUE(p->provenance == Provenance::measured || p->provenance == Provenance::fitted) << key;
  }
  EXPECT_FALSE(profile.created.empty());
  EXPECT_EQ(profile.tools.at("dpusim-calib"), DPUSIM_VERSION);
  EXPECT_FALSE(profile.machine.at("cpu.model").empty());
  // Every samples reference points at a raw file that exists.
  for (const auto& p : profile.parameters) {
    if (p.samples.empty())
      continue;
    const std::string file = p.samples.substr(0, p.samples.find('#'));
    EXPECT_TRUE(fs::exists(out.path() / file)) << p.key << " -> " << p.samples;
  }
  const auto csv = read_text_file(out.path() / "raw/tcp.csv");
  ASSERT_TRUE(csv.has_value());
  EXPECT_EQ(csv->rfind("series,index,size_bytes,metric,value\n", 0), 0u);
  // rdma was asked for but there is no device here: skipped, said in the notes, the run still complete.
  bool noted = false;
  for (const auto& n : profile.notes)
    noted = noted || n.rfind("rdma: skipped:", 0) == 0;
  EXPECT_TRUE(noted);
  // No temporary or partial files are left behind.
  for (const auto& e : fs::recursive_directory_iterator(out.path()))
    EXPECT_NE(e.path().filename().string().front(), '.') << e.path();
}

TEST(calib_Cli, InterruptedRunLeavesAValidIncompleteProfile) {
  const ScratchDir out;
  const std::string exe = kExe;
  const std::string dir = out.path().string();
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl(exe.c_str(), exe.c_str(), "run", "--probes", "memory,os-noise", "--duration", "30",
            "--memcpy-size", "64MiB", "--out", dir.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Let the memory probe finish (30 s budget over 4 sizes is long: interrupt during it or os-noise).
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT);
  const auto profile = load_profile(dir + "/profile.yaml");
  EXPECT_FALSE(profile.complete);
  bool noted = false;
  for (const auto& n : profile.notes)
    noted = noted || n.find("interrupted by SIGINT") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_NE(profile.find("host_cpu.cores"), nullptr);
  for (const auto& e : fs::recursive_directory_iterator(out.path()))
    EXPECT_NE(e.path().filename().string().front(), '.') << e.path();
}

TEST(calib_Cli, TcpProbeAgainstAServePeer) {
  // `serve --port 0 --sessions 1` prints its ephemeral port first, serves one session and exits.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const std::string exe = kExe;
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(pipe_fds[1], 1);
    ::close(pipe_fds[0]);
    ::execl(exe.c_str(), exe.c_str(), "serve", "--listen", "127.0.0.1", "--port", "0", "--sessions", "1",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  std::string first;
  char c = 0;
  while (::read(pipe_fds[0], &c, 1) == 1 && c != '\n')
    first += c;
  ::close(pipe_fds[0]);
  const auto words = split_whitespace(first); // "listening on 127.0.0.1 port N (dpusim-calib/1)"
  ASSERT_GE(words.size(), 5u) << first;
  const std::string port(words[4]);
  const ScratchDir out;
  const auto r = calib({"run", "--probes", "tcp", "--duration", "1", "--peer", "127.0.0.1:" + port, "--out",
                        out.path().string()});
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("peer 127.0.0.1:" + port), std::string::npos) << r.out;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const auto profile = load_profile((out.path() / "profile.yaml").string());
  EXPECT_NE(profile.find("host_cpu.tcp_latency_median"), nullptr);
}
