// Live probes on this machine, each bounded to a couple of seconds; they assert plausible ranges only.
#include "../test_data.hpp"
#include "hw_calib/common/interrupt.hpp"
#include "hw_calib/common/process_runner.hpp"
#include "hw_calib/discover/machine_discovery.hpp"
#include "hw_calib/probes/crypto_probe.hpp"
#include "hw_calib/probes/gpu_probe.hpp"
#include "hw_calib/probes/memory_probe.hpp"
#include "hw_calib/probes/nccl_probe.hpp"
#include "hw_calib/probes/os_noise_probe.hpp"
#include "hw_calib/probes/rdma_probe.hpp"
#include "hw_calib/probes/storage_probe.hpp"
#include "hw_calib/probes/tcp_probe.hpp"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <thread>

using namespace dpusim::calib;
using dpusim::calib::testing::data_path;
using dpusim::calib::testing::ScratchDir;
namespace fs = std::filesystem;

namespace {

MachineInfo this_machine() {
  DiscoverOptions o;
  o.run_tools = false;
  o.measure_clock = false;
  return discover_machine(o);
}

ProbeSettings quick_settings() {
  ProbeSettings s;
  s.duration_s = 1.0;
  s.time_limit_s = 30;
  s.storage_size_bytes = 32.0 * 1024 * 1024;
  s.memcpy_max_bytes = 64.0 * 1024 * 1024;
  return s;
}

const dpusim::calibration::ProfileParam* find(const ProbeResult& r, const std::string& key) {
  for (const auto& p : r.params) {
    if (p.key == key)
      return &p;
  }
  return nullptr;
}

} // namespace

TEST(calib_LiveProbe, TcpOverLoopback) {
  clear_stop_request();
  const MachineInfo m = this_machine();
  const ProbeSettings s = quick_settings();
  const ProbeResult r = run_tcp_probe(ProbeContext(s, m, "tcp"));
  ASSERT_EQ(r.status, ProbeStatus::ok) << r.error;
  const auto* tx = find(r, "host_cpu.tcp_tx_rate_per_core");
  const auto* rx = find(r, "host_cpu.tcp_rx_rate_per_core");
  const auto* lat = find(r, "host_cpu.tcp_latency_median");
  ASSERT_TRUE(tx && rx && lat);
  // One core moves between ~0.5 and ~1000 Gb/s over loopback; one-way latency is 1 us .. 5 ms.
  EXPECT_GT(tx->value * 8, 0.5e9);
  EXPECT_LT(tx->value * 8, 1000e9);
  EXPECT_GT(rx->value * 8, 0.5e9);
  EXPECT_LT(rx->value * 8, 1000e9);
  EXPECT_GT(lat->value, 0.5e-6);
  EXPECT_LT(lat->value, 5e-3);
  EXPECT_EQ(tx->samples, "raw/tcp.csv#tx_stream");
  ASSERT_TRUE(tx->fit.has_value());
  EXPECT_EQ(tx->fit->model, "linear");
  EXPECT_GT(tx->fit->metrics.at("r2"), 0.5);
  const auto* p99 = find(r, "host_cpu.tcp_latency_p99");
  ASSERT_NE(p99, nullptr);
  EXPECT_GE(p99->value, lat->value);
  EXPECT_FALSE(r.samples.empty());
}

TEST(calib_LiveProbe, CryptoAesGcmPerCore) {
  clear_stop_request();
  const MachineInfo m = this_machine();
  const ProbeSettings s = quick_settings();
  const ProbeResult r = run_crypto_probe(ProbeContext(s, m, "crypto"));
  if (r.status == ProbeStatus::skipped)
    GTEST_SKIP() << r.error;
  const auto* p = find(r, "host_cpu.aes_gcm_rate_per_core");
  ASSERT_NE(p, nullptr);
  // From ~50 MB/s (no AES instructions, slow core) to ~30 GB/s (Zen 5 VAES measured 20.9 GB/s).
  EXPECT_GT(p->value, 50e6);
  EXPECT_LT(p->value, 30e9);
  EXPECT_FALSE(r.tools.at("openssl").empty());
}

TEST(calib_LiveProbe, OsNoiseFixedWorkQuantum) {
  clear_stop_request();
  const MachineInfo m = this_machine();
  const ProbeSettings s = quick_settings();
  const ProbeResult r = run_os_noise_probe(ProbeContext(s, m, "os-noise"));
  const auto* f = find(r, "host_cpu.os_noise_fraction");
  const auto* p99 = find(r, "host_cpu.os_noise_p99");
  ASSERT_TRUE(f && p99);
  EXPECT_GE(f->value, 0.0);
  EXPECT_LT(f->value, 1.0);
  EXPECT_GT(p99->value, 0.0);
  EXPECT_LT(p99->value, 1.0); // a detour of a second would be a hung machine
}

TEST(calib_LiveProbe, MemcpyBandwidth) {
  clear_stop_request();
  const MachineInfo m = this_machine();
  const ProbeSettings s = quick_settings();
  const ProbeResult r = run_memory_probe(ProbeContext(s, m, "memory"));
  const auto* p = find(r, "host_cpu.memcpy_bandwidth");
  ASSERT_NE(p, nullptr);
  EXPECT_GT(p->value, 0.3e9); // 0.3 .. 200 GB/s for one thread
  EXPECT_LT(p->value, 200e9);
}

TEST(calib_LiveProbe, StorageOnItsOwnTemporaryFileBuiltin) {
  clear_stop_request();
  const ScratchDir dir;
  const MachineInfo m = this_machine();
  ProbeSettings s = quick_settings();
  s.storage_dir = dir.path();
  s.storage_tool = "builtin";
  const ProbeResult r = run_storage_probe(ProbeContext(s, m, "storage"));
  const auto* bw = find(r, "storage.read_bandwidth");
  const auto* iops = find(r, "storage.random_read_iops");
  ASSERT_TRUE(bw && iops);
  EXPECT_GT(bw->value, 10e6); // 10 MB/s .. 100 GB/s
  EXPECT_LT(bw->value, 100e9);
  EXPECT_GT(iops->value, 50);
  EXPECT_LT(iops->value, 10e6);
  // The probe removed its temporary file and wrote nothing else.
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(calib_LiveProbe, StorageWithFioWhenInstalled) {
  if (!find_executable("fio"))
    GTEST_SKIP() << "fio is not installed";
  clear_stop_request();
  const ScratchDir dir;
  const MachineInfo m = this_machine();
  ProbeSettings s = quick_settings();
  s.storage_dir = dir.path();
  s.storage_tool = "fio";
  const ProbeResult r = run_storage_probe(ProbeContext(s, m, "storage"));
  const auto* bw = find(r, "storage.read_bandwidth");
  ASSERT_NE(bw, nullptr);
  EXPECT_GT(bw->value, 10e6);
  EXPECT_NE(r.tools.at("fio").find("fio-"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(calib_LiveProbe, StorageReadsAnExplicitFileWithoutWritingIt) {
  clear_stop_request();
  const ScratchDir dir;
  const fs::path file = dir.path() / "data.bin";
  {
    std::ofstream out(file, std::ios::binary);
    const std::string block(1 << 20, 'x');
    for (int i = 0; i < 8; ++i)
      out << block;
  }
  const auto before = fs::last_write_time(file);
  const MachineInfo m = this_machine();
  ProbeSettings s = quick_settings();
  s.storage_file = file;
  s.storage_tool = "builtin";
  s.duration_s = 0.4;
  const ProbeResult r = run_storage_probe(ProbeContext(s, m, "storage"));
  EXPECT_NE(find(r, "storage.read_bandwidth"), nullptr);
  EXPECT_EQ(fs::last_write_time(file), before);
  EXPECT_EQ(fs::file_size(file), 8u << 20);
  // Nothing but the given file in the directory.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(calib_LiveProbe, InterruptionStopsAProbeAndItsThreads) {
  clear_stop_request();
  const MachineInfo m = this_machine();
  ProbeSettings s = quick_settings();
  s.duration_s = 30;
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    request_stop(SIGINT);
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW((void)run_os_noise_probe(ProbeContext(s, m, "os-noise")), Interrupted);
  stopper.join();
  clear_stop_request();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST(calib_LiveProbe, TimeLimitStopsAProbe) {
  clear_stop_request();
  const MachineInfo m = this_machine();
  ProbeSettings s = quick_settings();
  s.duration_s = 30;
  s.time_limit_s = 0.5;
  EXPECT_THROW((void)run_memory_probe(ProbeContext(s, m, "memory")), ProbeTimeout);
}

TEST(calib_OfflineProbe, RdmaIsSkippedWithoutDevice) {
  MachineInfo m;
  const ProbeSettings s = quick_settings();
  const ProbeResult r = run_rdma_probe(ProbeContext(s, m, "rdma"));
  EXPECT_EQ(r.status, ProbeStatus::skipped);
  EXPECT_NE(r.error.find("no RDMA device"), std::string::npos);
}

TEST(calib_OfflineProbe, NcclFromRecordedOutput) {
  MachineInfo m;
  ProbeSettings s = quick_settings();
  s.nccl_output = data_path("nccl-tests/all_reduce_perf-2node-cx7-mpirun.txt");
  s.nccl_link_rate_Bps = 400e9 / 8;
  const ProbeResult r = run_nccl_probe(ProbeContext(s, m, "nccl"));
  ASSERT_EQ(r.status, ProbeStatus::ok);
  const auto* bw = find(r, "collective.allreduce_bus_bandwidth");
  const auto* lat = find(r, "collective.allreduce_latency");
  const auto* eff = find(r, "collective.network_efficiency");
  ASSERT_TRUE(bw && lat && eff);
  EXPECT_NEAR(bw->value / 1e9, 47.2, 0.5);
  EXPECT_EQ(lat->provenance, dpusim::calibration::Provenance::fitted);
  EXPECT_NEAR(lat->value, 24e-6, 3e-6); // the fixture's small-message time
  EXPECT_NEAR(eff->value, 0.944, 0.01);
  EXPECT_EQ(r.tools.at("nccl-tests"), "2.13.9");
}

TEST(calib_OfflineProbe, NcclChecksWhatTheRunMeasured) {
  // The probe takes ingest's checks: a network efficiency from ranks that all ran on one host, or a
  // single-GPU run, fails the probe instead of reaching the profile.
  MachineInfo m;
  ProbeSettings s = quick_settings();
  s.nccl_output = data_path("nccl-tests/all_reduce_perf-1node-8xh100.txt");
  s.nccl_link_rate_Bps = 400e9 / 8;
  try {
    (void)run_nccl_probe(ProbeContext(s, m, "nccl"));
    FAIL() << "a one-host run gave a network efficiency";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("crossed no network"), std::string::npos) << e.what();
  }
  s.nccl_output = data_path("nccl-tests/all_reduce_perf-1gpu.txt");
  s.nccl_link_rate_Bps.reset();
  EXPECT_THROW((void)run_nccl_probe(ProbeContext(s, m, "nccl")), std::runtime_error);
}

TEST(calib_OfflineProbe, NcclSkippedWithoutToolOrFile) {
  if (find_executable("all_reduce_perf"))
    GTEST_SKIP() << "nccl-tests installed here";
  MachineInfo m;
  const ProbeSettings s = quick_settings();
  const ProbeResult r = run_nccl_probe(ProbeContext(s, m, "nccl"));
  EXPECT_EQ(r.status, ProbeStatus::skipped);
  EXPECT_NE(r.error.find("--nccl-output"), std::string::npos);
}

TEST(calib_OfflineProbe, GpuFromRecordedHelperOutput) {
  MachineInfo m;
  ProbeSettings s = quick_settings();
  s.gpu_csv = data_path("gpu-probe/h100-sxm.csv");
  const ProbeResult r = run_gpu_probe(ProbeContext(s, m, "gpu"));
  const auto* gemm = find(r, "gpu.gemm_peak_achieved");
  const auto* h2d = find(r, "gpu.h2d_bandwidth");
  ASSERT_TRUE(gemm && h2d);
  EXPECT_NEAR(gemm->value / 1e12, 717.7, 0.1);
  EXPECT_NEAR(h2d->value / 1e9, 54.98, 0.01);
  ASSERT_TRUE(h2d->fit.has_value());
  EXPECT_EQ(h2d->fit->model, "alpha-beta");
  EXPECT_EQ(run_gpu_probe(ProbeContext(quick_settings(), m, "gpu")).status, ProbeStatus::skipped);
}
