// Per-link usage of a simulated graph against closed forms: two flows sharing a leaf up-link for the
// whole run use it fully (mean and peak 1) and each NIC port half; bytes are conserved along routes
// (their sum over a route's links is the bytes times its hops, over every hashed path); a probe reused
// by a task lands on the task's own GPUs, as many times as it is reused; the CSV and the trace's fabric
// counters. Each test simulates at most once (SimGrid's engine is a singleton; ctest runs each alone).
#include "sim/report/link_usage.hpp"
#include "sim/report/trace_writer.hpp"
#include "sim/topology/topology.hpp"
#include "tests/support/collective_rig.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>

using namespace dpusim;
using dpusim::testing::Rig;
using RigSetup = dpusim::testing::Setup;

namespace {

/// 64 single-GPU, single-NIC nodes on two leaves of 32 (the fabric routing test's rig).
RigSetup two_leaves(int connections = 1) {
  return {.nodes = 64, .gpus = 1, .nics = 1, .pcie_switches = 1, .seed = 1, .connections = connections};
}

bool is_uplink(const topology::Topology& topo, std::int32_t e) {
  return e < topo.num_edges() && topo.vertex(topo.edge_source(e)).kind == topology::VertexKind::leaf &&
         topo.vertex(topo.edge_target(e)).kind == topology::VertexKind::spine;
}

std::optional<std::int32_t> uplink_of(Rig& rig, int src, int dst) {
  for (const auto e : rig.platform->route(src, dst).links)
    if (is_uplink(*rig.topo, e))
      return e;
  return std::nullopt;
}

std::string name_of(const topology::Topology& topo, std::int32_t e) {
  return topo.vertex(topo.edge_source(e)).name + "->" + topo.vertex(topo.edge_target(e)).name;
}

const report::LinkUsage* row_of(const std::vector<report::LinkUsage>& rows, std::int32_t e) {
  for (const auto& r : rows)
    if (r.edge == e)
      return &r;
  return nullptr;
}

/// One transfer task of `flows`, alone in a plan.
plan::IterationPlan one_transfer(std::vector<engine::Flow> flows) {
  plan::IterationPlan p;
  engine::Task t;
  t.kind = engine::TaskKind::transfer;
  t.flows = std::move(flows);
  p.graph.add(t);
  plan::TaskInfo info;
  info.category = plan::TaskCategory::flow;
  p.info.push_back(info);
  return p;
}

} // namespace

TEST(LinkUsage, TwoFlowsSharingALeafUplinkUseItFullyAndEachNicPortHalf) {
  Rig rig(two_leaves());
  // GPU 0 and GPU 1 (leaf 0) to GPUs of leaf 1 whose hashed routes take the same leaf-to-spine link.
  const auto shared = uplink_of(rig, 0, 32);
  ASSERT_TRUE(shared);
  int peer = -1;
  for (int dst = 33; dst < 64 && peer < 0; ++dst)
    if (uplink_of(rig, 1, dst) == shared)
      peer = dst;
  ASSERT_GE(peer, 0) << "no route from GPU 1 shares GPU 0's up-link";
  const double bytes = 10e9;
  auto plan = one_transfer({{0, 32, bytes}, {1, peer, bytes}});
  simgrid::Simulator sim(rig.platform->build());
  const auto timings = sim.execute(plan.graph);
  const double step = timings[0].end;
  const double uplink = rig.topo->edge(*shared).bandwidth.si();
  EXPECT_NEAR(step, 2 * bytes / uplink, 1e-3 * step); // the shared up-link is the bottleneck
  const auto rows = report::link_usage({.plan = &plan, .timings = &timings, .step_s = step}, *rig.platform);
  const auto* up = row_of(rows, *shared);
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->link, name_of(*rig.topo, *shared));
  EXPECT_EQ(up->kind, "fabric");
  EXPECT_EQ(up->tier, "leaf-spine");
  EXPECT_DOUBLE_EQ(up->bytes, 2 * bytes);
  EXPECT_NEAR(up->mean_utilisation, 1.0, 1e-3);
  EXPECT_NEAR(up->peak_utilisation, 1.0, 1e-3);
  EXPECT_EQ(&rows.front(), up) << "the shared up-link is the hottest";
  // Each GPU's NIC port carries its own flow at half the up-link's rate.
  int ports = 0;
  for (const auto& r : rows)
    if (r.tier == "nic-leaf") {
      ++ports;
      EXPECT_EQ(r.kind, "nic_port");
      EXPECT_DOUBLE_EQ(r.bytes, bytes);
      EXPECT_NEAR(r.mean_utilisation, 0.5 * uplink / r.capacity_bps, 1e-3) << r.link;
      EXPECT_NEAR(r.peak_utilisation, r.mean_utilisation, 1e-9) << r.link;
    }
  EXPECT_EQ(ports, 2);
  for (const auto& r : rows) {
    EXPECT_FALSE(r.congestion);
    EXPECT_LE(r.peak_utilisation, 1 + 1e-9) << r.link;
  }
  for (std::size_t i = 1; i < rows.size(); ++i)
    EXPECT_GE(rows[i - 1].mean_utilisation, rows[i].mean_utilisation);
  std::cout << "shared up-link " << up->link << ": mean " << up->mean_utilisation << ", peak "
            << up->peak_utilisation << " over " << step << " s; " << rows.size() << " links\n";
}

TEST(LinkUsage, BytesAreConservedAlongEveryHashedPath) {
  // Four connections per GPU pair: each route holds four hashed paths, each with a quarter of the bytes.
  Rig rig(two_leaves(4));
  const double bytes = 1e9;
  std::vector<engine::Flow> flows;
  double want = 0;
  for (int i = 0; i < 8; ++i) {
    flows.push_back({i, 32 + (i * 5) % 32, bytes});
    const auto& r = rig.platform->route(i, 32 + (i * 5) % 32);
    ASSERT_EQ(r.spread, 4);
    want += bytes * static_cast<double>(r.links.size()) / r.spread; // bytes x hops, per path
  }
  auto plan = one_transfer(flows);
  simgrid::Simulator sim(rig.platform->build());
  const auto timings = sim.execute(plan.graph);
  const auto rows =
      report::link_usage({.plan = &plan, .timings = &timings, .step_s = timings[0].end}, *rig.platform);
  double total = 0;
  std::set<std::string> names;
  for (const auto& r : rows) {
    total += r.bytes;
    EXPECT_TRUE(names.insert(r.link).second) << r.link << " twice";
    EXPECT_GT(r.bytes, 0);
  }
  EXPECT_NEAR(total, want, 1e-6 * want);
  std::cout << rows.size() << " links carry " << total << " bytes (8 flows of 1 GB, " << want / 8 / bytes
            << " hops on average)\n";
}

TEST(LinkUsage, AReusedProbeLandsOnTheReusingTasksGpusAsOftenAsItIsReused) {
  // tp = 2: the probe's all-reduce between GPUs 0 and 1 stands for those of every tensor-parallel group.
  // A task of GPUs 2 and 3 reusing it three times puts three probes' bytes on their route, none on 0-1's.
  Rig rig(two_leaves());
  plan::IterationPlan p;
  engine::Task probe_task;
  probe_task.kind = engine::TaskKind::transfer;
  probe_task.flows = {{0, 1, 1e6}};
  p.probe.add(probe_task);
  plan::TaskInfo forward;
  forward.category = plan::TaskCategory::forward;
  forward.dp = 1;
  forward.stage = 0;
  forward.gpus = {2, 3};
  forward.tp_collectives = 3;
  p.info.push_back(forward);
  engine::Task compute;
  compute.kind = engine::TaskKind::work;
  compute.loads = {{2, 1.0}};
  p.graph.add(compute);
  const std::vector<engine::TaskTiming> timings{{0, 1, 1}};
  report::LinkInputs in{.plan = &p, .timings = &timings, .step_s = 1};
  in.parallelism.tp = 2;
  in.parallelism.dp = 2;
  in.probes.tp = &p.probe;
  in.probes.timings[0] = {{0, 1e-3, 1}};
  const auto rows = report::link_usage(in, *rig.platform);
  std::set<std::int32_t> want;
  for (const auto e : rig.platform->route(2, 3).links)
    want.insert(e);
  std::set<std::int32_t> got;
  for (const auto& r : rows) {
    got.insert(r.edge);
    EXPECT_DOUBLE_EQ(r.bytes, 3e6) << r.link;
    // 1 MB in 1 ms on each link: its peak is one probe's rate, not three.
    EXPECT_NEAR(r.peak_utilisation, 1e6 / 1e-3 / r.capacity_bps, 1e-12) << r.link;
  }
  EXPECT_EQ(got, want);
}

TEST(LinkUsage, CsvHasTheCongestionColumnsOnlyWithCongestionAndLeavesUnrecordedPortsEmpty) {
  report::LinkUsage hot{.edge = 1,
                        .link = "leaf0->spine0",
                        .kind = "fabric",
                        .tier = "leaf-spine",
                        .capacity_bps = 50e9,
                        .bytes = 2e9,
                        .mean_utilisation = 0.5,
                        .peak_utilisation = 0.75};
  hot.congestion = plan::PortCongestion{1, 0.25, 0.125, 0.8, 2048};
  report::LinkUsage cold{.edge = 2,
                         .link = "n0.nic0->leaf0",
                         .kind = "nic_port",
                         .tier = "nic-leaf",
                         .capacity_bps = 50e9,
                         .bytes = 1e9,
                         .mean_utilisation = 0.25,
                         .peak_utilisation = 0.5};
  EXPECT_EQ(report::render_links_csv({hot, cold}, false),
            "link,kind,tier,capacity_gbps,bytes,mean_utilisation,peak_utilisation\n"
            "leaf0->spine0,fabric,leaf-spine,400,2e+09,0.5,0.75\n"
            "n0.nic0->leaf0,nic_port,nic-leaf,400,1e+09,0.25,0.5\n");
  EXPECT_EQ(report::render_links_csv({hot, cold}, true),
            "link,kind,tier,capacity_gbps,bytes,mean_utilisation,peak_utilisation,pause_fraction,ecn_marked,"
            "dcqcn_utilisation,queue_kb\n"
            "leaf0->spine0,fabric,leaf-spine,400,2e+09,0.5,0.75,0.25,0.125,0.8,2.048\n"
            "n0.nic0->leaf0,nic_port,nic-leaf,400,1e+09,0.25,0.5,,,,\n");
}

TEST(LinkUsage, TheTraceDrawsTheBusiestFabricLinksInAFabricProcess) {
  // 33 busy fabric links and one NVLink: the trace keeps the 32 busiest fabric ones, in a "fabric"
  // process; a link's counter is the sum of the transfers running on it.
  Rig rig(two_leaves());
  plan::IterationPlan p;
  std::vector<report::LinkUsage> rows;
  std::vector<report::LinkLoad> loads;
  for (int i = 0; i < 34; ++i)
    rows.push_back({.edge = i,
                    .link = fmt::format("l{}", i),
                    .kind = i == 0 ? "nvlink" : "fabric",
                    .mean_utilisation = 1.0 - i / 100.0});
  const std::vector<engine::TaskTiming> none;
  const auto kept = report::fabric_loads(rows, {.plan = &p, .timings = &none}, *rig.platform);
  ASSERT_EQ(kept.size(), 32U);
  EXPECT_EQ(kept.front().link, "l1");
  EXPECT_EQ(kept.back().link, "l32");
  loads.push_back({"leaf0->spine3", {{{0.0, 2e-3, 0.5}}, {{1e-3, 3e-3, 0.25}}}});
  const auto trace = report::render_trace(p, {}, *rig.topo, 0, loads);
  const int fabric_pid = rig.topo->layout().nodes + 1;
  EXPECT_NE(trace.find(fmt::format(
                R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"fabric"}}}})", fabric_pid)),
            std::string::npos)
      << trace;
  for (const auto& [ts, value] : std::vector<std::pair<std::string, std::string>>{
           {"0.000", "0.5"}, {"1000.000", "0.75"}, {"2000.000", "0.25"}, {"3000.000", "0"}})
    EXPECT_NE(trace.find(fmt::format(
                  R"({{"name":"leaf0->spine3","ph":"C","ts":{},"pid":{},"args":{{"utilisation":{}}}}})", ts,
                  fabric_pid, value)),
              std::string::npos)
        << ts << " " << value << "\n"
        << trace;
  // Without fabric loads, no fabric process.
  EXPECT_EQ(report::render_trace(p, {}, *rig.topo, 0).find("\"fabric\""), std::string::npos);
}

TEST(LinkUsage, TheHottestLinksAreTheBusiestEightThenTheMostPausedAndSurviveTheTripBetweenProcesses) {
  std::vector<report::LinkUsage> rows;
  for (int i = 0; i < 12; ++i) {
    report::LinkUsage u;
    u.edge = i;
    u.link = "l" + std::to_string(i);
    u.kind = i == 0 ? "nvlink" : "fabric"; // not a fabric link: never among them
    u.tier = "leaf-spine";
    u.mean_utilisation = 1.0 - 0.05 * i;
    if (i >= 10) {
      plan::PortCongestion c;
      c.link = i;
      c.pause_fraction = 0.1 * (i - 9);
      u.congestion = c;
    }
    rows.push_back(u);
  }
  const auto hot = report::hot_links(rows);
  ASSERT_EQ(hot.size(), 10u);
  EXPECT_EQ(hot.front().link, "l1");
  EXPECT_EQ(hot[7].link, "l8");
  EXPECT_EQ(hot[8].link, "l11") << "the most paused first";
  EXPECT_DOUBLE_EQ(hot[8].pause_fraction, 0.2);
  EXPECT_EQ(hot[9].link, "l10");
  report::VariantResult r;
  r.hot_links = hot;
  const auto back = report::deserialize(report::serialize(r));
  ASSERT_EQ(back.hot_links.size(), hot.size());
  EXPECT_EQ(back.hot_links[8].link, "l11");
  EXPECT_DOUBLE_EQ(back.hot_links[8].pause_fraction, 0.2);
  EXPECT_DOUBLE_EQ(back.hot_links[0].mean_utilisation, hot[0].mean_utilisation);
}
