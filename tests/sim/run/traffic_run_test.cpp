// Raw traffic on a fabric: closed forms that must emerge from the simulation (an incast's port shared
// evenly, a lone flow at its NIC's rate, a start that only shifts a flow), background flows taking their
// share, and PFC's pauses upstream of an incast. One simulation per test: ctest runs each in a process
// of its own.
#include "models/base/yaml_reader.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/input/traffic_file.hpp"
#include "sim/run/collective_sweep.hpp"
#include "sim/run/traffic_run.hpp"
#include "tests/support/bundled_catalog.hpp"
#include "tests/support/in_child.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace dpusim;

namespace {

const catalog::Catalog& the_catalog() {
  return dpusim::testing::bundled_catalog();
}

/// The bundled test fabric (32 DGX H100, 256 hosts, four leaves), without its PFC unless `pfc`, its leaves
/// 2:1 oversubscribed where `oversubscribed`.
scenario::Scenario fabric(bool pfc, bool oversubscribed = false) {
  std::ifstream in(std::filesystem::path(DPUSIM_SOURCE_DIR) / "scenarios/fabrics/fabric-256-pfc.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (!pfc)
    s.erase(s.find("congestion:"), std::string("congestion: {control: pfc-only}").size());
  if (oversubscribed)
    s.replace(s.find("\"1:1\""), 5, "\"2:1\"");
  return input::parse_scenario(yaml::parse_text(s, "fabric.yaml"), the_catalog());
}

run::TrafficResult simulate(const scenario::Scenario& s, const std::string& traffic) {
  const auto t = input::parse_traffic(traffic, "t.yaml", run::traffic_hosts(s, the_catalog()), s.seed);
  return run::run_traffic(s, the_catalog(), s.variants.front(), t);
}

/// A lone flow's completion time, simulated in a child process (one simulation per process).
double alone_s(const std::string& traffic) {
  return dpusim::testing::in_child([&] { return simulate(fabric(false), traffic).flows.at(0).fct_s(); },
                                   -1.0);
}

/// The NIC's line rate in bytes/s, as its link to the leaf runs.
double line_rate(const run::TrafficResult& r) {
  for (const auto& l : r.links)
    if (l.kind == "nic_port")
      return l.capacity_bps;
  return 0;
}

} // namespace

TEST(Traffic, ALoneFlowRunsNearItsNicsRate) {
  const auto r = simulate(fabric(false), "traffic:\n  - {pattern: flow, from: 0, to: 64, bytes: 64MiB}\n");
  ASSERT_EQ(r.flows.size(), 1U);
  const double rate = 64.0 * 1024 * 1024 / r.flows[0].fct_s();
  EXPECT_LE(rate, line_rate(r));
  EXPECT_GT(rate, 0.9 * line_rate(r)); // RDMA's protocol efficiency and the route's latency only
  EXPECT_DOUBLE_EQ(r.makespan_s, r.flows[0].end_s);
  EXPECT_FALSE(r.congestion);
}

TEST(Traffic, AnIncastSharesTheReceiversPortEvenly) {
  // 16 senders onto one port: each gets a sixteenth, so each ends when the port has served all 16, as
  // one flow of 16 times the bytes would (one route latency each), and the port is busy the whole time.
  const double one = alone_s("traffic:\n  - {pattern: flow, from: 64, to: 0, bytes: 256MiB}\n");
  ASSERT_GT(one, 0);
  const auto many = simulate(
      fabric(false), "traffic:\n  - {pattern: incast, hosts: [64, 72, 80, 88, 96, 104, 112, 120, 128, "
                     "136, 144, 152, 160, 168, 176, 184], to: 0, bytes: 16MiB}\n");
  ASSERT_EQ(many.flows.size(), 16U);
  for (const auto& f : many.flows)
    EXPECT_NEAR(f.fct_s() / one, 1.0, 0.01);
  ASSERT_FALSE(many.links.empty());
  EXPECT_EQ(many.links.front().link, "leaf0->n0.nic0");
  EXPECT_GT(many.links.front().mean_utilisation, 0.95);
}

TEST(Traffic, AStartShiftsAFlowWithoutChangingIt) {
  const auto r =
      simulate(fabric(false), "traffic:\n"
                              "  - {name: a, pattern: flow, from: 0, to: 64, bytes: 8MiB}\n"
                              "  - {name: b, pattern: flow, from: 8, to: 72, bytes: 8MiB, start: 1ms}\n");
  ASSERT_EQ(r.flows.size(), 2U);
  EXPECT_DOUBLE_EQ(r.flows[1].start_s, 1e-3);
  EXPECT_NEAR(r.flows[1].fct_s(), r.flows[0].fct_s(), 1e-9);
  EXPECT_NEAR(r.makespan_s, 1e-3 + r.flows[1].fct_s(), 1e-9);
}

TEST(Traffic, ABackgroundFlowOnTheSamePortsHalvesAFlowsRate) {
  const double alone = alone_s("traffic:\n  - {pattern: flow, from: 0, to: 64, bytes: 32MiB}\n");
  ASSERT_GT(alone, 0);
  const auto shared =
      simulate(fabric(false), "traffic:\n"
                              "  - {name: timed, pattern: flow, from: 0, to: 64, bytes: 32MiB}\n"
                              "  - {name: others, pattern: flow, from: 1, to: 65, background: true}\n");
  // GPUs 0 and 1 of node 0 reach GPUs 0 and 1 of node 8 through their own NICs and the same two leaves:
  // where ECMP hashes them onto one up-link, they share it.
  ASSERT_EQ(shared.flows.size(), 2U);
  const double k = shared.flows[0].fct_s() / alone;
  EXPECT_TRUE(std::abs(k - 1) < 0.01 || std::abs(k - 2) < 0.02) << k;
  // The background flow stops when the timed one ends.
  EXPECT_NEAR(shared.flows[1].end_s, shared.flows[0].end_s, 1e-9);
}

TEST(Traffic, PfcPausesAnIncastsSendersForWhatTheirPortCannotServe) {
  // 8 senders at line rate into one port under PFC alone: each is served an eighth, so its NIC is paused
  // 7/8 of the time once the switch's buffer has filled to XOFF; sharing the port evenly is what max-min
  // gave already, so the flows take no longer.
  const auto r = simulate(fabric(true), "traffic:\n  - {pattern: incast, hosts: [64, 72, 80, 88, 96, 104, "
                                        "112, 120], to: 0, bytes: 16MiB}\n");
  ASSERT_TRUE(r.congestion);
  EXPECT_EQ(r.control, "pfc-only");
  double worst = 0;
  for (const auto& l : r.links)
    if (l.congestion)
      worst = std::max(worst, l.congestion->pause_fraction);
  EXPECT_NEAR(worst, 7.0 / 8, 0.06);
  for (const auto& f : r.flows)
    EXPECT_NEAR(f.fct_s() / f.uncongested_s, 1.0, 0.01);
}

namespace {

/// Whether some link of the run is `name`.
bool crossed(const run::TrafficResult& r, const std::string& name) {
  return std::any_of(r.links.begin(), r.links.end(), [&](const auto& l) { return l.link == name; });
}

} // namespace

TEST(Traffic, WithNcclsPxnASendToAnotherRailLeavesThroughThatRailsNic) {
  // GPU 0 of node 0 to GPU 1 of node 8: over NVLink to GPU 1 of node 0 and out through its NIC.
  const auto r = simulate(fabric(false), "traffic:\n  - {pattern: flow, from: 0, to: 65, bytes: 1MiB}\n");
  EXPECT_TRUE(crossed(r, "n0.nic1->leaf0"));
  EXPECT_FALSE(crossed(r, "n0.nic0->leaf0"));
}

TEST(Traffic, WithoutPxnEveryHostsTrafficLeavesThroughItsOwnNic) {
  const auto r =
      simulate(fabric(false), "pxn: false\ntraffic:\n  - {pattern: flow, from: 0, to: 65, bytes: 1MiB}\n");
  EXPECT_TRUE(crossed(r, "n0.nic0->leaf0"));
  EXPECT_FALSE(crossed(r, "n0.nic1->leaf0"));
}

namespace {

/// GPU 0 of each of the bundled fabric's first `nodes` nodes.
std::string first_gpus(int nodes) {
  std::string out = "[";
  for (int n = 0; n < nodes; ++n)
    out += (n == 0 ? "" : ", ") + std::to_string(8 * n);
  return out + "]";
}

} // namespace

namespace {

/// What `dpusim nccl-tests` gives one operation of 64 MiB over GPU 0 of eight nodes (in a child process).
double swept_s(const scenario::Scenario& s, const run::SweepOptions& options) {
  return dpusim::testing::in_child(
      [&] {
        auto o = options;
        o.sizes = {64.0 * 1024 * 1024};
        o.nodes = 8;
        o.gpus_per_node = 1;
        return run::run_collective_sweep(s, the_catalog(), s.variants.front(), o).rows.at(0).time_s;
      },
      -1.0);
}

} // namespace

TEST(Traffic, ACollectiveAloneTakesWhatNcclTestsGivesIt) {
  // The same lowering, platform and protocol as `dpusim nccl-tests` with NCCL_ALGO=Ring and
  // NCCL_PROTO=Simple on GPU 0 of eight nodes: the traffic file's all-reduce takes that time.
  const auto s = fabric(false);
  run::SweepOptions o;
  o.algorithm = plan::CollectiveAlgorithm::ring;
  o.protocol = catalog::NcclProtocol::simple;
  const double swept = swept_s(s, o);
  ASSERT_GT(swept, 0);
  const auto r = simulate(s, "pxn: false\ntraffic:\n  - {pattern: all_reduce, hosts: " + first_gpus(8) +
                                 ", bytes: 64MiB, start: 1ms}\n");
  ASSERT_EQ(r.collectives.size(), 1U);
  EXPECT_TRUE(r.flows.empty());
  EXPECT_NEAR(r.collectives[0].fct_s(), swept, 1e-9 * swept);
  EXPECT_DOUBLE_EQ(r.collectives[0].start_s, 1e-3);
  EXPECT_NEAR(r.makespan_s, 1e-3 + swept, 1e-9);
}

TEST(Traffic, AnAlltoallAloneTakesWhatNcclTestsGivesIt) {
  const auto s = fabric(false);
  run::SweepOptions o;
  o.op = run::SweepOp::alltoall;
  const double swept = swept_s(s, o);
  ASSERT_GT(swept, 0);
  const auto r = simulate(s, "pxn: false\ntraffic:\n  - {pattern: alltoall, hosts: " + first_gpus(8) +
                                 ", bytes: 64MiB}\n");
  ASSERT_EQ(r.collectives.size(), 1U);
  EXPECT_NEAR(r.collectives[0].fct_s(), swept, 1e-9 * swept);
}

TEST(Traffic, ARingAllReduceMovesAtTheShareItsBusiestPortLeavesIt) {
  // Alone, each node's NIC carries the ring's two channels (NCCL's two a NIC, a connection each), each
  // at half its rate. A background send from GPU 0 of node 0 through the same NIC opens two connections
  // too: four share the port, a quarter each, and both channels slow to a quarter (a ring moves at its
  // slowest hop's pace), so the bandwidth-bound all-reduce of 1 GiB takes about twice as long; its
  // latency tail is unchanged.
  const std::string ring =
      "  - {name: ring, pattern: all_reduce, hosts: " + first_gpus(8) + ", bytes: 1GiB}\n";
  const double alone = dpusim::testing::in_child(
      [&] { return simulate(fabric(false), "pxn: false\ntraffic:\n" + ring).collectives.at(0).fct_s(); },
      -1.0);
  ASSERT_GT(alone, 0);
  const auto r =
      simulate(fabric(false), "pxn: false\ntraffic:\n" + ring +
                                  "  - {name: others, pattern: flow, from: 0, to: 128, background: true}\n");
  const double k = r.collectives.at(0).fct_s() / alone;
  EXPECT_GT(k, 1.95);
  EXPECT_LT(k, 2.0);
  // The collective ended the run: the background flow stopped with it.
  EXPECT_NEAR(r.flows.at(0).end_s, r.collectives[0].end_s, 1e-9);
}

namespace {

/// When an all-to-all of 1 MiB a pair among GPUs 0 and 4 of the 32 nodes ends (in a child process): as
/// NCCL's one operation with `parts` activities a node, or (0) as its pairs' flows.
double alltoall_end_s(int parts) {
  std::string hosts = "[";
  for (int h = 0; h < 64; ++h)
    hosts += (h == 0 ? "" : ", ") + std::to_string(4 * h);
  hosts += "]";
  const std::string group = parts > 0 ? "  - {pattern: alltoall, hosts: " + hosts +
                                            ", bytes: 64MiB, parts: " + std::to_string(parts) + "}\n"
                                      : "  - {pattern: all_to_all, hosts: " + hosts + ", bytes: 1MiB}\n";
  return dpusim::testing::in_child(
      [&] { return simulate(fabric(false, true), "pxn: false\ntraffic:\n" + group).makespan_s; }, -1.0);
}

} // namespace

TEST(Traffic, AnAlltoallInMorePartsMovesAsItsFlowsDo) {
  // On the test fabric with 2:1 leaves (without PFC), ECMP puts some of a node's flows to the other 31
  // nodes on one spine up-link together. As one activity a node, every flow of the node moves at the
  // slowest's pace; split by destination node, the flows that do not collide end sooner, and with one
  // part a destination node the operation ends when its flows would (bar NCCL's latency of the
  // operation, the same in every form).
  const double flows = alltoall_end_s(0);
  const double one = alltoall_end_s(1);
  const double four = alltoall_end_s(4);
  const double each = alltoall_end_s(31);
  ASSERT_GT(flows, 0);
  ASSERT_GT(each, 0);
  EXPECT_GE(one, four);
  EXPECT_GE(four, each);
  EXPECT_GT(one, 1.02 * each) << "the collisions this test is about are gone";
  EXPECT_NEAR(each, flows, 0.02 * flows);
}
