// Properties of the offload models over whole iterations: more host cores never slow a host-placed
// variant, an inline engine below the demand slows the traffic it carries, every payload byte is
// booked on the processors that touch it, and a CPU-bound connection runs at its cores' closed-form
// rate. These compare several simulations; SimGrid's engine is a process-wide singleton, so each one
// runs in a child process of its own, as `dpusim compare` runs its variants.
#include "models/base/yaml_reader.hpp"
#include "models/calibration/profile.hpp"
#include "models/workload/transformer.hpp"
#include "sim/cli/process_pool.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/run/variant_run.hpp"
#include "sim/scenario/hardware.hpp"
#include "tests/support/bundled_catalog.hpp"
#include "tests/support/subprocess.hpp"

#include <algorithm>
#include <cstring>
#include <gtest/gtest.h>
#include <iostream>
#include <tuple>
#include <type_traits>

using namespace dpusim;

namespace {

const catalog::Catalog& the_catalog() {
  return dpusim::testing::bundled_catalog();
}

scenario::Scenario parse(const std::string& text) {
  return input::parse_scenario(yaml::parse_text(text, "test.yaml"), the_catalog());
}

/// One simulation: a scenario, a placement, and optionally the host's core count (through a
/// calibration profile's host_cpu.cores, the one way a scenario's host cores can change).
struct Job {
  scenario::Scenario s;
  std::string variant; // empty: the scenario's baseline
  std::string profile; // calibration profile path, empty for none
};

// The metrics travel between processes as their bytes: the serialized text keeps 9 digits, too few for
// identities checked to 1e-9.
static_assert(std::is_trivially_copyable_v<metrics::IterationMetrics>);

/// Runs every job in a process of its own and returns the results in job order.
std::vector<report::VariantResult> simulate(const std::vector<Job>& jobs) {
  std::cout.flush(); // a child must not write out what the parent had buffered
  std::fflush(nullptr);
  const auto outcomes = cli::run_in_processes(jobs.size(), 2, [&](std::size_t i) {
    const auto& j = jobs[i];
    const auto v =
        j.variant.empty() ? j.s.variants.front() : input::variant_for(j.s, the_catalog(), j.variant);
    run::RunOptions ro;
    ro.calibration = j.profile;
    ro.calibration_shape = true; // the profiles here set the core count on purpose
    const auto r = run::run_variant(j.s, the_catalog(), v, ro);
    return std::string(reinterpret_cast<const char*>(&r.metrics), sizeof r.metrics) + report::serialize(r);
  });
  std::vector<report::VariantResult> out;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& o = outcomes[i];
    if (o.exit_code != 0 || o.output.size() < sizeof(metrics::IterationMetrics)) {
      ADD_FAILURE() << "simulation " << i << " (" << jobs[i].variant << ") failed: " << o.describe();
      out.emplace_back();
      continue;
    }
    auto r = report::deserialize(o.output.substr(sizeof(metrics::IterationMetrics)));
    std::memcpy(&r.metrics, o.output.data(), sizeof r.metrics);
    out.push_back(std::move(r));
  }
  return out;
}

/// A calibration profile that sets only the host's total core count (all sockets).
std::string cores_profile(const dpusim::testing::TempDir& tmp, int cores) {
  calibration::Profile p;
  p.created = "2026-01-01T00:00:00Z";
  calibration::ProfileParam param;
  param.key = "host_cpu.cores";
  param.value = cores;
  param.provenance = calibration::Provenance::datasheet;
  param.source = "offload_properties_test";
  p.parameters.push_back(param);
  const std::string path = tmp.path() + "/cores-" + std::to_string(cores) + ".yaml";
  calibration::save_profile(p, path);
  return path;
}

/// A calibration profile that sets only the DPU's Arm cores.
std::string arm_cores_profile(const dpusim::testing::TempDir& tmp, int cores) {
  calibration::Profile p;
  p.created = "2026-01-01T00:00:00Z";
  calibration::ProfileParam param;
  param.key = "dpu_arm.cores";
  param.value = cores;
  param.provenance = calibration::Provenance::datasheet;
  param.source = "offload_properties_test";
  p.parameters.push_back(param);
  const std::string path = tmp.path() + "/arm-cores-" + std::to_string(cores) + ".yaml";
  calibration::save_profile(p, path);
  return path;
}

std::size_t use(plan::CpuUse u) {
  return static_cast<std::size_t>(u);
}

/// Core-seconds of one use over the step, all nodes, from the per-node busy cores reported.
double core_s(const report::VariantResult& r, const plan::CpuUseSeconds& by_use, plan::CpuUse u) {
  return by_use[use(u)] * r.metrics.step_time_s * r.nodes;
}

bool has_note(const report::VariantResult& r, const std::string& text) {
  for (const auto& n : r.notes)
    if (n.find(text) != std::string::npos)
      return true;
  return false;
}

// Two DGX H100 nodes, tensor parallel inside each, data parallel across: the gradient reduction is
// the only inter-node traffic.
std::string two_nodes(const std::string& services, const std::string& extra_cluster = "",
                      const std::string& extra_workload = "") {
  return R"(name: offload-properties
cluster:
  nodes: 2
  node: dgx-h100
  fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}
  services: )" +
         services + "\n" + extra_cluster + R"(workload:
  model: {layers: 4, hidden: 2048, heads: 16, vocab: 50257}
  seq_len: 2048
  global_batch: 16
  micro_batch: 1
  parallelism: {tp: 8, dp: 2}
)" + extra_workload +
         "offload: {baseline: host-tcp}\n";
}

// Single-GPU nodes, pure data parallelism, no overlap: the ring all-reduce of every gradient byte is
// the only inter-node traffic and runs after the backward pass, alone.
std::string data_parallel_ring(int nodes, const std::string& services, int socket_threads) {
  return R"(name: data-parallel-ring
cluster:
  nodes: )" +
         std::to_string(nodes) +
         R"(
  gpus_per_node: 1
  node: dgx-h100
  fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}
  services: )" +
         services + R"(
workload:
  model: {layers: 4, hidden: 2048, heads: 16, vocab: 50257}
  seq_len: 2048
  global_batch: 8
  micro_batch: 1
  parallelism: {tp: 1, dp: )" +
         std::to_string(nodes) + R"(}
  overlap_grad_reduce: false
  communication: {algorithm: ring, socket_threads: )" +
         std::to_string(socket_threads) + R"(}
offload: {baseline: host-tcp}
)";
}

// Two DGX H100 nodes with BlueField-3s write a 4 GiB shard per GPU to eight servers, each taking one
// shard of each node at 50 GB/s on a 400 Gb/s port: the storage client's processors bound the write.
std::string snap_checkpoint(const std::string& storage_extra, const std::string& cluster_extra = "") {
  return R"(name: snap-checkpoint
cluster:
  nodes: 2
  node: dgx-h100
  nic: connectx-7
  dpu: bluefield-3
  fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}
)" + cluster_extra +
         R"(  storage: {servers: 8, link: 400Gbps, read_rate: 50GB/s)" + storage_extra + R"(}
workload:
  model: {layers: 4, hidden: 2048, heads: 16, vocab: 50257}
  seq_len: 2048
  global_batch: 16
  micro_batch: 1
  parallelism: {tp: 8, dp: 2}
  checkpoint: {every: 10, mode: sync, size: 4GiB}
offload: {baseline: rdma-nic+storage=dpu_arm}
)";
}

// The same nodes training on their ConnectX-7s, each with a BlueField-3 as its storage port on a storage
// fabric of its own (a front-end DPU; or `port`), and `agents` host cores of agents.
std::string frontend_checkpoint(const std::string& storage_extra, const std::string& agents = "0",
                                const std::string& port = "bluefield-3") {
  return snap_checkpoint(", fabric: separate, node_nic: " + port + storage_extra,
                         "  services: {agents: " + agents + "}\n");
}

/// The time the iteration that writes a checkpoint takes beyond a plain one.
double checkpoint_write_s(const report::VariantResult& r) {
  return r.metrics.checkpoint_step_s - r.metrics.step_time_s;
}

/// Gradient bytes each rank reduces when nothing is sharded (tp = pp = 1, ZeRO 0).
double gradient_bytes(const scenario::Scenario& s) {
  return workload::parameter_count(s.workload.model, s.workload.seq_len) * s.workload.grad_bytes_per_param;
}

} // namespace

TEST(HostCores, MoreCoresNeverSlowAHostPlacedVariant) {
  // host-tcp with the host doing everything a scenario can ask of it, on 2 to 112 cores per node: the
  // step may only shrink as cores are added, and it must shrink somewhere (the host is the bottleneck
  // at 2 cores), otherwise the core count would not have reached the simulation.
  const std::vector<int> counts{2, 4, 6, 8, 12, 16, 112}; // host_cpu.cores, even: two sockets
  const std::vector<std::pair<std::string, std::string>> cases{
      {"ipsec on the host", two_nodes("{encryption: ipsec}")},
      {"tls, vxlan, agents and data loading on the host",
       two_nodes("{encryption: tls, overlay: vxlan, agents: 1.5}",
                 "  storage: {servers: 1, link: 400Gbps, read_rate: 25GB/s}\n",
                 "  data: {sample: 4MiB, decode: 2ms, workers: 4}\n")}};
  dpusim::testing::TempDir tmp;
  for (const auto& [what, text] : cases) {
    SCOPED_TRACE(what);
    const auto s = parse(text);
    std::vector<Job> jobs;
    for (int n : counts)
      jobs.push_back({s, "", cores_profile(tmp, n)});
    const auto r = simulate(jobs);
    std::string steps;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      EXPECT_EQ(r[i].host_cores, counts[i]);
      steps += " " + std::to_string(counts[i]) + ":" + std::to_string(r[i].metrics.step_time_s);
      if (i > 0) {
        EXPECT_LE(r[i].metrics.step_time_s, r[i - 1].metrics.step_time_s * (1 + 1e-9))
            << counts[i] << " cores vs " << counts[i - 1] << ";" << steps;
      }
    }
    EXPECT_GT(r.front().metrics.step_time_s, 1.5 * r.back().metrics.step_time_s) << steps;
    std::cout << what << ": step s by host cores" << steps << "\n";
  }
}

TEST(InlineEngine, IpsecBelowLineRateSlowsRdmaByTheRatioOfRates) {
  // rdma-nic on ConnectX-7: with IPsec every inter-node byte also crosses the inline engine, 193 Gb/s
  // per direction against the 400 Gb/s port, so the exposed gradient reduction runs at the engine's
  // rate (bytes inflated by the collective efficiency on both links alike).
  auto plain = parse(two_nodes("{encryption: none}", "", "  overlap_grad_reduce: false\n"));
  auto ipsec = parse(two_nodes("{encryption: ipsec}", "", "  overlap_grad_reduce: false\n"));
  const auto r = simulate({{plain, "rdma-nic", ""}, {ipsec, "rdma-nic", ""}});
  const auto* nic = the_catalog().nic("connectx-7");
  ASSERT_TRUE(nic->offloads.ipsec_rate);
  const double line = nic->line_rate.value.si();
  const double engine = nic->offloads.ipsec_rate->value.si();
  ASSERT_LT(engine, line);
  EXPECT_GT(r[1].metrics.step_time_s, r[0].metrics.step_time_s);
  EXPECT_NEAR(r[1].metrics.dp_comm_s / r[0].metrics.dp_comm_s, line / engine, 0.05 * line / engine)
      << "dp reduction " << r[0].metrics.dp_comm_s << " s plain, " << r[1].metrics.dp_comm_s << " s ipsec";
  EXPECT_TRUE(has_note(r[1], "inline ipsec engine of the connectx-7 runs at 193Gbps"));
  EXPECT_FALSE(has_note(r[0], "inline"));
  std::cout << "rdma-nic step " << r[0].metrics.step_time_s << " s plain, " << r[1].metrics.step_time_s
            << " s ipsec; dp " << r[0].metrics.dp_comm_s << " / " << r[1].metrics.dp_comm_s << " s\n";
}

TEST(InlineEngine, MovingEncryptionOntoASlowerEngineSlowsHostTcp) {
  // Two single-GPU nodes, sixteen socket threads per connection and cores to spare: AES-GCM and TCP on
  // host cores keep up with the 400 Gb/s port, so encrypting on the host costs cores but no time. The
  // 193 Gb/s inline IPsec engine is below what the path carries otherwise (host-staged TCP over PCIe):
  // encryption=nic makes the reduction slower, running at the engine's rate. The 400 Gb/s TLS engine
  // is no limit.
  const auto plain = parse(data_parallel_ring(2, "{encryption: none}", 16));
  const auto ipsec = parse(data_parallel_ring(2, "{encryption: ipsec}", 16));
  const auto tls = parse(data_parallel_ring(2, "{encryption: tls}", 16));
  const auto r = simulate({{plain, "host-tcp", ""},
                           {ipsec, "host-tcp", ""},
                           {ipsec, "host-tcp+encryption=nic", ""},
                           {tls, "host-tcp+encryption=nic", ""}});
  const auto& [none, on_host, on_engine, on_tls_engine] = std::tie(r[0], r[1], r[2], r[3]);
  const auto* nic = the_catalog().nic("connectx-7");
  ASSERT_TRUE(nic->offloads.ipsec_rate);
  const double engine = nic->offloads.ipsec_rate->value.si();
  // Each rank sends its S gradient bytes once around a ring of two; no faster than the engine, and at
  // its rate once the link's collective efficiency (which inflates the bytes on every link) is counted.
  const double sent = gradient_bytes(ipsec);
  EXPECT_NEAR(on_host.metrics.dp_comm_s, none.metrics.dp_comm_s, 1e-6 * none.metrics.dp_comm_s);
  EXPECT_GT(on_engine.metrics.step_time_s, on_host.metrics.step_time_s);
  EXPECT_GT(on_engine.metrics.dp_comm_s, on_host.metrics.dp_comm_s * 1.2);
  EXPECT_GE(on_engine.metrics.dp_comm_s, sent / engine);
  EXPECT_NEAR(on_engine.metrics.dp_comm_s / (sent / (engine * nic->collective_efficiency.value)), 1.0, 0.03);
  EXPECT_GT(on_host.metrics.host_busy_cores_by_use[use(plan::CpuUse::encryption)], 0.0);
  EXPECT_EQ(on_engine.metrics.host_busy_cores_by_use[use(plan::CpuUse::encryption)], 0.0);
  EXPECT_TRUE(has_note(on_engine, "inline ipsec engine of the connectx-7 runs at 193Gbps"));
  EXPECT_FALSE(has_note(on_host, "inline"));
  EXPECT_NEAR(on_tls_engine.metrics.step_time_s, none.metrics.step_time_s, 1e-6 * none.metrics.step_time_s);
  EXPECT_FALSE(has_note(on_tls_engine, "inline"));
  std::cout << "host-tcp x16 threads, step / dp reduction s: no encryption " << none.metrics.step_time_s
            << " / " << none.metrics.dp_comm_s << ", ipsec on host " << on_host.metrics.step_time_s << " / "
            << on_host.metrics.dp_comm_s << ", ipsec engine " << on_engine.metrics.step_time_s << " / "
            << on_engine.metrics.dp_comm_s << ", tls engine " << on_tls_engine.metrics.step_time_s << " / "
            << on_tls_engine.metrics.dp_comm_s << "\n";
}

TEST(Accounting, CoreSecondsAreTheBytesTheRingMovesOverEachProcessorsRate) {
  // A ring all-reduce over n ranks sends 2(n-1)/n of each rank's gradient bytes S, 2(n-1) S in all;
  // each byte costs its sender and its receiver the per-core rate of every function on its path.
  // Booked core-seconds by use must be exactly that, and the per-node figures must add back up.
  const std::string services = "{encryption: ipsec, overlay: vxlan}";
  const auto s = parse(data_parallel_ring(4, services, 1));
  const auto r = simulate({{s, "host-tcp", ""},
                           {s, "host-tcp+encryption=dpu_arm", ""},
                           {s, "host-tcp+encryption=dpu_arm+vswitch=dpu_arm", ""},
                           {s, "rdma-nic", ""}});
  const int n = 4;
  const double total = 2.0 * (n - 1) * gradient_bytes(s);
  const auto hw = scenario::resolve_hardware(s, the_catalog(), input::variant_for(s, the_catalog(), "dpu"));
  const auto& cpu = hw.cpu;
  ASSERT_TRUE(hw.nic.arm);
  const auto& arm = *hw.nic.arm;
  auto per_byte = [](const catalog::Cited<units::DataRate>& rate) { return 1.0 / rate.value.si(); };
  const double transport = total * (per_byte(cpu.tcp_tx_rate_per_core) + per_byte(cpu.tcp_rx_rate_per_core));
  using plan::CpuUse;
  struct Expect {
    CpuUse u;
    double host;
    double arm;
  };
  const std::vector<std::vector<Expect>> expected{
      // everything on the host
      {{CpuUse::transport, transport, 0},
       {CpuUse::encryption, 2 * total * per_byte(cpu.aes_gcm_rate_per_core), 0},
       {CpuUse::vswitch, 2 * total * per_byte(cpu.ovs_rate_per_core), 0}},
      // encryption on the Arm cores, which also forward what they encrypt; OVS on the host
      {{CpuUse::transport, transport, 0},
       {CpuUse::encryption, 0,
        2 * total * (per_byte(arm.aes_gcm_rate_per_core) + per_byte(arm.ovs_rate_per_core))},
       {CpuUse::vswitch, 2 * total * per_byte(cpu.ovs_rate_per_core), 0}},
      // both on the Arm cores: forwarding is the virtual switch's, charged once
      {{CpuUse::transport, transport, 0},
       {CpuUse::encryption, 0, 2 * total * per_byte(arm.aes_gcm_rate_per_core)},
       {CpuUse::vswitch, 0, 2 * total * per_byte(arm.ovs_rate_per_core)}},
      // RDMA with inline IPsec and the eSwitch: no processor touches the bytes
      {{CpuUse::transport, 0, 0}, {CpuUse::encryption, 0, 0}, {CpuUse::vswitch, 0, 0}}};
  for (std::size_t i = 0; i < r.size(); ++i) {
    const auto& m = r[i].metrics;
    SCOPED_TRACE(r[i].variant);
    for (const auto& e : expected[i]) {
      SCOPED_TRACE(std::string(plan::cpu_use_name(e.u)));
      EXPECT_NEAR(core_s(r[i], m.host_busy_cores_by_use, e.u), e.host, 1e-9 * std::max(1.0, e.host));
      EXPECT_NEAR(core_s(r[i], m.arm_busy_cores_by_use, e.u), e.arm, 1e-9 * std::max(1.0, e.arm));
    }
    double host_sum = 0;
    double arm_sum = 0;
    for (std::size_t u = 0; u < plan::kCpuUses; ++u) {
      host_sum += core_s(r[i], m.host_busy_cores_by_use, static_cast<CpuUse>(u));
      arm_sum += core_s(r[i], m.arm_busy_cores_by_use, static_cast<CpuUse>(u));
    }
    EXPECT_NEAR(host_sum, m.host_cpu_core_s, 1e-9 * m.host_cpu_core_s);
    EXPECT_NEAR(arm_sum, m.arm_core_s, 1e-9 * std::max(1.0, m.arm_core_s));
    EXPECT_NEAR(m.host_cpu_busy_cores * m.step_time_s * r[i].nodes, m.host_cpu_core_s,
                1e-9 * m.host_cpu_core_s);
    if (r[i].arm_cores > 0) {
      EXPECT_NEAR(m.arm_utilisation * r[i].arm_cores * m.step_time_s * r[i].nodes, m.arm_core_s,
                  1e-9 * m.arm_core_s);
    } else {
      EXPECT_EQ(m.arm_core_s, 0.0);
    }
    std::cout << r[i].variant << ": host " << m.host_cpu_core_s << " core-s, arm " << m.arm_core_s
              << " core-s, step " << m.step_time_s << " s\n";
  }
}

TEST(ClosedForm, HostTcpReductionRunsAtItsCoresRateEndToEnd) {
  // The lowering-level closed form (tests/sim/plan/collective_lowering_test.cpp) through a whole
  // iteration, with functions stacked on the connection's cores: each of a connection's T threads is one
  // core on each end carrying 1/T of the bytes and every per-byte cost of the functions on that end, so a
  // ring all-reduce takes 2(n-1)/n S max_end(sum_f 1/R_f) / T, plus latencies. Under Arm placement, the
  // Arm end (min(T, Arm cores) cores) joins the max.
  const int threads = 2;
  const auto s = parse(data_parallel_ring(4, "{encryption: ipsec, overlay: vxlan}", threads));
  const auto r = simulate({{s, "host-tcp", ""}, {s, "host-tcp+encryption=dpu_arm+vswitch=dpu_arm", ""}});
  const int n = 4;
  const double per_rank = 2.0 * (n - 1) / n * gradient_bytes(s);
  const auto hw = scenario::resolve_hardware(s, the_catalog(), input::variant_for(s, the_catalog(), "dpu"));
  auto inv = [](const catalog::Cited<units::DataRate>& rate) { return 1.0 / rate.value.si(); };
  const auto& cpu = hw.cpu;
  const auto& arm = *hw.nic.arm;
  const double host_all = std::max(inv(cpu.tcp_tx_rate_per_core), inv(cpu.tcp_rx_rate_per_core)) +
                          inv(cpu.aes_gcm_rate_per_core) + inv(cpu.ovs_rate_per_core);
  const double host_tcp_only = std::max(inv(cpu.tcp_tx_rate_per_core), inv(cpu.tcp_rx_rate_per_core));
  const double arm_all = inv(arm.aes_gcm_rate_per_core) + inv(arm.ovs_rate_per_core);
  const double expected_host = per_rank * host_all / threads;
  const double expected_arm =
      per_rank * std::max(host_tcp_only / threads, arm_all / std::min(threads, arm.cores.value));
  EXPECT_GE(r[0].metrics.dp_comm_s, expected_host * (1 - 1e-9));
  EXPECT_NEAR(r[0].metrics.dp_comm_s / expected_host, 1.0, 0.02)
      << "simulated " << r[0].metrics.dp_comm_s << " s, closed form " << expected_host << " s";
  EXPECT_GE(r[1].metrics.dp_comm_s, expected_arm * (1 - 1e-9));
  EXPECT_NEAR(r[1].metrics.dp_comm_s / expected_arm, 1.0, 0.02)
      << "simulated " << r[1].metrics.dp_comm_s << " s, closed form " << expected_arm << " s";
  std::cout << "dp reduction host " << r[0].metrics.dp_comm_s << " s (closed form " << expected_host
            << "), arm " << r[1].metrics.dp_comm_s << " s (closed form " << expected_arm << ")\n";
}

TEST(Snap, ACheckpointThroughSnapDoesNotFollowTheHostClientsConnections) {
  // The issue's case: with the default single NFS connection, SNAP was held to one Arm core (12.5 s for
  // a node's 8 x 4 GiB at 22 Gb/s) and came out slower than the host client it offloads. SNAP's SPDK
  // datapath polls with its own cores on each of the node's DPUs: the connection count must not change
  // it, while the host client keeps following it.
  const auto one = parse(snap_checkpoint(", client_connections: 1"));
  const auto eight = parse(snap_checkpoint(", client_connections: 8"));
  const auto r = simulate({{one, "", ""},
                           {eight, "", ""},
                           {one, "rdma-nic+storage=host", ""},
                           {eight, "rdma-nic+storage=host", ""}});
  const auto& [snap1, snap8, host1, host8] = std::tie(r[0], r[1], r[2], r[3]);
  EXPECT_NEAR(snap1.metrics.checkpoint_step_s, snap8.metrics.checkpoint_step_s,
              1e-9 * snap8.metrics.checkpoint_step_s);
  EXPECT_GT(checkpoint_write_s(host1), 2 * checkpoint_write_s(host8)); // the host client's connections count
  const auto hw =
      scenario::resolve_hardware(one, the_catalog(), input::variant_for(one, the_catalog(), "dpu"));
  const auto& arm = *hw.nic.arm;
  const double node_bytes = 8 * 4.0 * 1024 * 1024 * 1024;
  const double one_arm_core = node_bytes / arm.storage_client_rate_per_core.value.si();
  EXPECT_LT(checkpoint_write_s(snap1), one_arm_core / 4);
  EXPECT_LT(checkpoint_write_s(snap1), checkpoint_write_s(host1));
  EXPECT_TRUE(
      has_note(snap1, "SNAP (storage on the Arm cores) polls with 8 of each bluefield-3's 16 Arm cores"));
  std::cout << "checkpoint write s, 1 / 8 connections: SNAP " << checkpoint_write_s(snap1) << " / "
            << checkpoint_write_s(snap8) << ", host client " << checkpoint_write_s(host1) << " / "
            << checkpoint_write_s(host8) << "; one Arm core would take " << one_arm_core << "\n";
}

TEST(Snap, ACheckpointThroughSnapSpeedsUpWithItsCoresUpToTheArmCores) {
  // Each of a node's 8 DPUs writes its GPU's shard on k polling cores: a write bound by SNAP takes
  // node_bytes / (8 k R_storage,arm), halving as k doubles, until the Arm cores run out (a profile's
  // dpu_arm.cores of 4 holds a 16-core mask to 4).
  dpusim::testing::TempDir tmp;
  std::vector<Job> jobs;
  for (int k : {1, 2, 4})
    jobs.push_back({parse(snap_checkpoint(", snap_cores: " + std::to_string(k))), "", ""});
  jobs.push_back({parse(snap_checkpoint(", snap_cores: 16")), "", arm_cores_profile(tmp, 4)});
  const auto r = simulate(jobs);
  const auto& s = jobs.front().s;
  const auto hw = scenario::resolve_hardware(s, the_catalog(), input::variant_for(s, the_catalog(), "dpu"));
  const double node_bytes = 8 * 4.0 * 1024 * 1024 * 1024;
  const double rate = hw.nic.arm->storage_client_rate_per_core.value.si();
  std::string writes;
  for (std::size_t i = 0; i < 3; ++i) {
    const int k = 1 << i;
    const double closed_form = node_bytes / (8.0 * k * rate);
    writes += " " + std::to_string(k) + ":" + std::to_string(checkpoint_write_s(r[i]));
    EXPECT_GE(checkpoint_write_s(r[i]), closed_form * (1 - 1e-9)) << k;
    EXPECT_NEAR(checkpoint_write_s(r[i]) / closed_form, 1.0, 0.05) << k << " cores:" << writes;
    EXPECT_TRUE(has_note(r[i], "polls with " + std::to_string(k) + " of each bluefield-3's 16 Arm cores"))
        << k;
  }
  EXPECT_NEAR(r[3].metrics.checkpoint_step_s, r[2].metrics.checkpoint_step_s,
              1e-9 * r[2].metrics.checkpoint_step_s)
      << "a 16-core mask on 4 Arm cores";
  EXPECT_TRUE(has_note(r[3], "polls with 4 of each bluefield-3's 4 Arm cores (cluster.storage.snap_cores"));
  std::cout << "SNAP checkpoint write s by its cores" << writes << "; 16 on 4 Arm cores "
            << checkpoint_write_s(r[3]) << "\n";
}

TEST(FrontEndDpu, SnapOnTheStoragePortsDpuWritesAtItsPollingCoresRateAndKeepsTheTrainingNics) {
  // One BlueField-3 per host on the storage fabric runs SNAP for the whole node: a write bound by SNAP
  // takes node_bytes / (k R_storage,arm) on its k polling cores, halving as k doubles, while the training
  // traffic stays on the ConnectX-7s (the variant's device is no DPU).
  std::vector<Job> jobs;
  for (int k : {2, 4})
    jobs.push_back({parse(frontend_checkpoint(", snap_cores: " + std::to_string(k))), "", ""});
  jobs.push_back({jobs.front().s, "rdma-nic+storage=host", ""});
  const auto r = simulate(jobs);
  const auto& s = jobs.front().s;
  const auto v = s.variants.front();
  EXPECT_FALSE(v.on_dpu);
  const auto hw = scenario::resolve_hardware(s, the_catalog(), v);
  ASSERT_TRUE(hw.storage_nic && hw.storage_nic->arm);
  const double node_bytes = 8 * 4.0 * 1024 * 1024 * 1024;
  const double rate = hw.storage_nic->arm->storage_client_rate_per_core.value.si();
  for (std::size_t i = 0; i < 2; ++i) {
    const int k = 2 << i;
    const double closed_form = node_bytes / (k * rate);
    EXPECT_EQ(r[i].device, "connectx-7");
    EXPECT_GE(checkpoint_write_s(r[i]), closed_form * (1 - 1e-9)) << k;
    EXPECT_NEAR(checkpoint_write_s(r[i]) / closed_form, 1.0, 0.05) << k;
    EXPECT_TRUE(has_note(r[i], "polls with " + std::to_string(k) +
                                   " of each bluefield-3's 16 Arm cores (each tray's storage port"))
        << k;
    EXPECT_EQ(r[i].arm_cores, 16); // the front-end DPU's, counted where the variant uses them
  }
  // The host client on its one NFS connection is slower than SNAP on 2 Arm cores.
  EXPECT_GT(checkpoint_write_s(r[2]), checkpoint_write_s(r[0]));
  EXPECT_EQ(r[2].arm_cores, 0);
  std::cout << "front-end SNAP checkpoint write s, 2 / 4 cores: " << checkpoint_write_s(r[0]) << " / "
            << checkpoint_write_s(r[1]) << "; host client " << checkpoint_write_s(r[2]) << "\n";
}

TEST(FrontEndDpu, AgentsOnTheStoragePortsDpuLeaveTheHostAndTheStep) {
  // Agents placed on dpu_arm run on the front-end DPU's Arm cores: none stay on the host, the Arm cores
  // take their work at the Arm's rate, and the step (RDMA on the ConnectX-7s) does not move.
  const auto s = parse(frontend_checkpoint("", "4"));
  const auto r = simulate({{s, "rdma-nic+agents=dpu_arm", ""}, {s, "rdma-nic+agents=host", ""}});
  const auto& [arm, host] = std::tie(r[0], r[1]);
  EXPECT_EQ(arm.device, "connectx-7");
  EXPECT_NEAR(arm.metrics.step_time_s, host.metrics.step_time_s, 1e-9 * host.metrics.step_time_s);
  EXPECT_EQ(core_s(arm, arm.metrics.host_busy_cores_by_use, plan::CpuUse::agents), 0);
  EXPECT_GT(core_s(host, host.metrics.host_busy_cores_by_use, plan::CpuUse::agents), 0);
  EXPECT_GT(arm.metrics.arm_busy_cores_by_use[use(plan::CpuUse::agents)], 4.0); // more Arm than host cores
  EXPECT_LT(arm.metrics.host_cpu_busy_cores, host.metrics.host_cpu_busy_cores - 3.9);
}

TEST(FrontEndDpu, ABlueField4PortRunsSnapOnItsGraceCoresAndTheAgentsCoreForCore) {
  // The announced BlueField-4 as each host's storage port: SNAP on k of its 64 Neoverse V2 cores writes
  // node_bytes / (k R_storage,arm) at its own per-core rate (a server core's, twice the BlueField-3's A78),
  // and agents take as many of its cores as they take host cores (the same per-core rate as the host's).
  const auto s = parse(frontend_checkpoint(", snap_cores: 2", "4", "bluefield-4"));
  const auto r = simulate({{s, "", ""}, {s, "rdma-nic+agents=dpu_arm", ""}});
  const auto hw = scenario::resolve_hardware(s, the_catalog(), s.variants.front());
  ASSERT_TRUE(hw.storage_nic && hw.storage_nic->arm);
  EXPECT_EQ(hw.storage_nic->arm->cores.value, 64);
  const double node_bytes = 8 * 4.0 * 1024 * 1024 * 1024;
  const double closed_form = node_bytes / (2 * hw.storage_nic->arm->storage_client_rate_per_core.value.si());
  EXPECT_GE(checkpoint_write_s(r[0]), closed_form * (1 - 1e-9));
  EXPECT_NEAR(checkpoint_write_s(r[0]) / closed_form, 1.0, 0.05);
  EXPECT_TRUE(has_note(r[0], "polls with 2 of each bluefield-4's 64 Arm cores (each tray's storage port"));
  EXPECT_EQ(r[1].device, "connectx-7");
  // The agents' Arm cores are the host cores the baseline's agents keep busy (R_rx,host / R_rx,arm = 1).
  const double host_agents = r[0].metrics.host_busy_cores_by_use[use(plan::CpuUse::agents)];
  EXPECT_NEAR(host_agents, 4.0, 0.1);
  EXPECT_NEAR(r[1].metrics.arm_busy_cores_by_use[use(plan::CpuUse::agents)], host_agents, 1e-3 * host_agents);
  std::cout << "BlueField-4 front-end SNAP write on 2 cores " << checkpoint_write_s(r[0])
            << " s (closed form " << closed_form << ")\n";
}
