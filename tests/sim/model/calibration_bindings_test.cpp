// Every calibration parameter a model consumes changes the output it should, in the direction it
// should: a profile with a lower or a higher value is run on a scenario where that parameter matters,
// and the step must move the expected way. A parameter bound in the registry without a row here fails.
#include "tests/support/run_csv.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <sstream>

using dpusim::testing::run_command;
using dpusim::testing::simulate;
using dpusim::testing::TempDir;

namespace {

std::string scenario(const std::string& services, const std::string& parallelism, int nodes,
                     const std::string& baseline) {
  return "name: cal\ncluster: {nodes: " + std::to_string(nodes) + ", node: dgx-h100, services: {" + services +
         "}, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}\n"
         "workload: {model: gpt3-2.7b, seq_len: 2048, global_batch: " +
         std::to_string(8 * nodes) + ", micro_batch: 1, parallelism: {" + parallelism +
         "}}\noffload: {baseline: " + baseline + "}\n";
}

// Host TCP carries the data-parallel reduction; encryption in software on the host; encryption and
// agents on the Arm cores; an overlay switched on the Arm cores; RDMA across a pipeline and a reduction.
const std::string kHostTcp = scenario("", "tp: 8, dp: 2", 2, "host-tcp");
const std::string kHostCrypto = scenario("encryption: ipsec", "tp: 8, dp: 2", 2, "host-tcp");
const std::string kArm = scenario("encryption: ipsec, agents: 20", "tp: 8, dp: 2", 2,
                                  "host-tcp+encryption=dpu_arm+agents=dpu_arm");
const std::string kArmSwitch = scenario("overlay: vxlan", "tp: 8, dp: 2", 2, "host-tcp+vswitch=dpu_arm");
const std::string kRdma = scenario("", "tp: 4, dp: 8", 4, "rdma-nic");
const std::string kPipeline = scenario("", "tp: 8, pp: 4, dp: 1", 4, "rdma-nic");
// OS noise on the host cores driving kernel TCP (a 64-GPU ring: each step waits for the slowest of its
// many hops, where the tail's shape shows), and on the Arm cores an overlay crosses.
const std::string kHostNoise = scenario("", "tp: 1, dp: 64", 8, "host-tcp") + "noise: {os_noise: true}\n";
const std::string kArmNoise = kArmSwitch + "noise: {os_noise: true}\n";
// RDMA's latency tail on a reduction over many hops.
const std::string kRdmaTail = kRdma + "noise: {network_tail: true}\n";
// One GPU whose loader's sample reads are the step (the storage read latency), drawn with the tail.
const std::string kLoader =
    "name: cal\ncluster: {nodes: 1, gpus_per_node: 1, node: dgx-h100, fabric: {topology: fat-tree, link: "
    "400Gbps, latency: 1us}, storage: {servers: 1, link: 400Gbps, read_rate: 25GB/s}}\n"
    "workload: {model: {layers: 2, hidden: 256, heads: 4, vocab: 1000}, seq_len: 1024, global_batch: 32, "
    "micro_batch: 1, parallelism: {tp: 1, dp: 1}, data: {sample: 4KiB, decode: 1us, workers: 1, prefetch: "
    "1}}\noffload: {baseline: rdma-nic}\nseed: 1\n";
const std::string kLoaderTail = kLoader + "noise: {storage_tail: true}\n";
// A data-parallel all-reduce small enough (90 KiB over 16 GPUs on 2 nodes) for NCCL's choice to run it in
// LL, the protocol the measured small-size latency sets.
const std::string kSmallAllReduce =
    "name: cal\ncluster: {nodes: 2, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: "
    "1us}}\nworkload: {model: {layers: 1, hidden: 32, heads: 2, vocab: 64}, seq_len: 256, global_batch: 16, "
    "micro_batch: 1, parallelism: {tp: 1, dp: 16}, communication: {algorithm: auto}}\n"
    "offload: {baseline: rdma-nic}\n";
/// Profile lines of a measured all-reduce's latency or shape.
std::string measured(const char* key, const char* value) {
  return std::string("  collective.allreduce_") + key + ":\n    value: " + value +
         "\n    provenance: measured\n    source: test\n";
}
const std::string kOnTwoNodes = measured("ranks", "2") + measured("nodes", "2");
const std::string kLatencyOnTwoNodes = measured("latency", "100us") + measured("nodes", "2");
const std::string kLatencyOfSixteenRanks = measured("latency", "100us") + measured("ranks", "16");

struct Case {
  const char* parameter;
  const char* role;
  const std::string* scenario;
  const char* low;
  const char* high;
  bool higher_is_faster;
  std::string also = ""; // further profile parameters the case needs, as YAML lines
};
// Names the case in test output (gtest prints an unknown type's bytes, addresses and all).
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.parameter;
}

const Case kCases[] = {
    {"host_cpu.cores", "host_cpu", &kHostTcp, "8", "112", true},
    {"host_cpu.tcp_tx_rate_per_core", "host_cpu", &kHostTcp, "10Gbps", "80Gbps", true},
    {"host_cpu.tcp_rx_rate_per_core", "host_cpu", &kHostTcp, "10Gbps", "80Gbps", true},
    {"host_cpu.tcp_latency_median", "host_cpu", &kHostTcp, "5us", "500us", false},
    {"host_cpu.tcp_latency_sigma", "host_cpu", &kHostTcp, "0.1", "2", false},
    {"host_cpu.aes_gcm_rate_per_core", "host_cpu", &kHostCrypto, "1GB/s", "8GB/s", true},
    {"dpu_arm.cores", "dpu_arm", &kArm, "6", "16", true},
    {"dpu_arm.tcp_rx_rate_per_core", "dpu_arm", &kArm, "7Gbps", "40Gbps", true},
    {"dpu_arm.aes_gcm_rate_per_core", "dpu_arm", &kArm, "1GB/s", "8GB/s", true},
    {"dpu_arm.tcp_latency_median", "dpu_arm", &kArmSwitch, "10us", "1ms", false},
    {"dpu_arm.tcp_latency_sigma", "dpu_arm", &kArmSwitch, "0.1", "2", false},
    // Against the catalog's 10 us 99th percentile: a mean detour between 1/15 of it and all of it.
    {"host_cpu.os_noise_fraction", "host_cpu", &kHostNoise, "0.01", "0.08", false},
    {"host_cpu.os_noise_p99", "host_cpu", &kHostNoise, "1.5us", "5us", false},
    {"dpu_arm.os_noise_fraction", "dpu_arm", &kArmNoise, "0.01", "0.08", false},
    {"dpu_arm.os_noise_p99", "dpu_arm", &kArmNoise, "1.5us", "5us", false},
    {"nic.rdma_bandwidth", "host_cpu", &kPipeline, "100Gbps", "400Gbps", true},
    {"nic.rdma_latency", "host_cpu", &kRdma, "2us", "200us", false},
    {"nic.rdma_latency_p99", "host_cpu", &kRdmaTail, "1us", "50us", false},
    {"collective.network_efficiency", "host_cpu", &kRdma, "0.3", "0.9", true},
    {"collective.nvlink_efficiency", "host_cpu", &kRdma, "0.3", "0.9", true},
    {"gpu.hbm_efficiency", "host_cpu", &kRdma, "0.3", "0.9", true},
    {"gpu.gemm_peak_achieved", "host_cpu", &kRdma, "300TFLOPS", "900TFLOPS", true},
    {"storage.read_latency_median", "host_cpu", &kLoader, "100us", "10ms", false},
    // The tail needs its median: 1 ms, against a 99th percentile of 2 ms or 50 ms.
    {"storage.read_latency_p99", "host_cpu", &kLoaderTail, "2ms", "50ms", false,
     "  storage.read_latency_median:\n    value: 1ms\n    provenance: measured\n    source: test\n"},
    // The measured small-size latency and its shape: a longer one, or the same over fewer ranks or nodes
    // (more of it in each step), makes the LL all-reduce longer.
    {"collective.allreduce_latency", "host_cpu", &kSmallAllReduce, "10us", "500us", false, kOnTwoNodes},
    {"collective.allreduce_ranks", "host_cpu", &kSmallAllReduce, "2", "16", true, kLatencyOnTwoNodes},
    {"collective.allreduce_nodes", "host_cpu", &kSmallAllReduce, "2", "16", true, kLatencyOfSixteenRanks},
};

double step_with(const TempDir& tmp, const Case& c, const char* value, const std::string& tag) {
  const std::string profile = tmp.path() + "/" + tag + ".profile.yaml";
  std::ofstream(profile) << "dpusim_profile: 1\ncomplete: true\ncreated: 2026-12-01T00:00:00Z\nrole: "
                         << c.role << "\nparameters:\n  " << c.parameter << ":\n    value: " << value
                         << "\n    provenance: measured\n    source: test\n"
                         << c.also;
  // Core counts are taken from a profile of another machine's shape only when asked: ask.
  std::string text = *c.scenario + "calibration: " + profile + "\ncalibration_shape: apply\n";
  return simulate(tmp, tag, text, "step_time_s");
}

class CalibrationBinding : public ::testing::TestWithParam<Case> {};

} // namespace

TEST_P(CalibrationBinding, MovesTheStepTheWayItShould) {
  const auto& c = GetParam();
  TempDir tmp;
  const double low = step_with(tmp, c, c.low, "low");
  const double high = step_with(tmp, c, c.high, "high");
  if (c.higher_is_faster)
    EXPECT_LT(high, low) << c.parameter << " " << c.low << " -> " << c.high;
  else
    EXPECT_GT(high, low) << c.parameter << " " << c.low << " -> " << c.high;
}

INSTANTIATE_TEST_SUITE_P(EveryBoundParameter, CalibrationBinding, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           std::string name = param_info.param.parameter;
                           for (auto& ch : name)
                             if (ch == '.')
                               ch = '_';
                           return name;
                         });

TEST(CalibrationBindings, EveryParameterAModelConsumesHasACase) {
  const auto r = run_command({DPUSIM_BINARY, "models"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> bound;
  const std::regex param(R"(^  param (\S+))");
  std::istringstream lines(r.out);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line))
    if (std::regex_search(line, m, param))
      bound.insert(m[1]);
  std::set<std::string> tested;
  for (const auto& c : kCases)
    tested.insert(c.parameter);
  EXPECT_EQ(bound, tested);
}

TEST(CalibrationBindings, AProfileThatLeavesTheArmCoresTooFewForTheAgentsIsRefused) {
  TempDir tmp;
  const std::string profile = tmp.path() + "/slow-arm.yaml";
  std::ofstream(profile)
      << "dpusim_profile: 1\ncomplete: true\ncreated: 2026-12-01T00:00:00Z\nrole: dpu_arm\n"
         "parameters:\n  dpu_arm.tcp_rx_rate_per_core:\n    value: 1Gbps\n"
         "    provenance: measured\n    source: test\n";
  const std::string file = tmp.path() + "/agents.yaml";
  std::ofstream(file) << kArm;
  const auto out = tmp.path() + "/out";
  const auto r = run_command({DPUSIM_BINARY, "run", file, "--calibration", profile, "--out", out});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(
      r.err.find("with the calibration profile's Arm cores and rates, this variant places 20 host cores of "
                 "agents on the DPUs' Arm cores"),
      std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CalibrationBindings, AProfileOfAnotherMachinesShapeGivesItsRatesAndKeepsTheNodesCores) {
  TempDir tmp;
  const std::string profile = tmp.path() + "/two-cores.yaml";
  std::ofstream(profile)
      << "dpusim_profile: 1\ncomplete: true\ncreated: 2026-12-01T00:00:00Z\nrole: host_cpu\n"
         "parameters:\n  host_cpu.cores:\n    value: 2\n    provenance: measured\n"
         "    source: test\n  host_cpu.tcp_rx_rate_per_core:\n    value: 20Gbps\n"
         "    provenance: measured\n    source: test\n";
  auto step = [&](const std::string& tag, const std::string& extra, const std::vector<std::string>& flags,
                  std::string* out = nullptr) {
    std::vector<std::string> args{"--calibration", profile};
    args.insert(args.end(), flags.begin(), flags.end());
    return simulate(tmp, tag, kHostTcp + extra, "step_time_s", out, args);
  };
  std::string said;
  const double rates_only = step("auto", "", {}, &said);
  EXPECT_NE(said.find("host_cpu.cores = 2 (measured, unused; not taken: the profile's machine has 2, the "
                      "scenario's dgx-h100 112"),
            std::string::npos)
      << said;
  const double shaped_by_flag = step("flag", "", {"--calibration-shape"});
  const double shaped_by_key = step("key", "calibration_shape: apply\n", {});
  EXPECT_GT(shaped_by_flag, 1.5 * rates_only) << "two host cores cannot drive the node's TCP connections";
  EXPECT_DOUBLE_EQ(shaped_by_flag, shaped_by_key);
}
