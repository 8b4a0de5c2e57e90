// RoCE congestion on the flow level against its closed forms: an incast alone delivers the port's rate in
// aggregate (PFC pauses each sender for 1 - C/(N r) of the time and costs the transfer nothing), a victim
// flow that shares a paused sender's port slows with it (head-of-line blocking), a buffer that absorbs the
// burst pauses nothing, a larger buffer never pauses more, and DCQCN keeps an incast's queue below XOFF.
#include "sim/plan/congestion_analysis.hpp"
#include "tests/support/collective_rig.hpp"

#include <gtest/gtest.h>

using namespace dpusim;
using dpusim::testing::Rig;

namespace {

/// Nine single-NIC nodes on one leaf.
Rig one_leaf() {
  return Rig({.nodes = 9, .gpus = 1, .nics = 1, .pcie_switches = 1});
}

/// Senders 1..n to node 0 with `bytes` each, and optionally a victim flow from sender 1 to node 8.
engine::Task incast(int n, double bytes, bool victim) {
  engine::Task t;
  t.kind = engine::TaskKind::transfer;
  for (int s = 1; s <= n; ++s)
    t.flows.push_back({s, 0, bytes});
  if (victim)
    t.flows.push_back({1, 8, bytes});
  return t;
}

/// The transfer's factor with the uncongested duration given by its busiest link (one flow per NIC port
/// at line rate, n of them into the receiver's port).
double factor(Rig& rig, const catalog::CongestionSpec& spec, const engine::Task& t, double duration,
              plan::CongestionSummary* summary = nullptr) {
  plan::CongestionAnalysis a(spec, *rig.platform,
                             [&rig](std::int32_t e) { return rig.topo->edge(e).bandwidth.si(); });
  const auto k = a.factors({{&t, duration, "incast"}});
  if (summary != nullptr)
    *summary = a.summary();
  return k.at(0);
}

double pause_of_sender(const Rig& rig, const plan::CongestionSummary& s, int node) {
  const auto& topo = *rig.topo;
  for (const auto& [e, p] : s.ports)
    if (topo.edge_source(e) == topo.nic(node, 0))
      return p.pause_fraction;
  return 0;
}

} // namespace

TEST(CongestionAnalysis, AnIncastAloneDeliversThePortsRateAndPausesEachSenderForOneMinusCOverNr) {
  Rig rig = one_leaf();
  const auto& pfc = *rig.cat.congestion("pfc-only");
  const int n = 6;
  const double bytes = 1e9; // long enough for the pauses to set in at once (XOFF is a few MB)
  const double rate = rig.nic();
  plan::CongestionSummary s;
  EXPECT_NEAR(factor(rig, pfc, incast(n, bytes, false), n * bytes / rate, &s), 1.0, 1e-9);
  const double xoff = catalog::pfc_ingress_port(pfc, units::DataRate::from_si(rate)).pause.xoff.si();
  const double pause = 1.0 - 1.0 / n;
  const double duration = n * bytes / rate;
  const double expected = pause * (1.0 - xoff / (rate * pause) / duration);
  for (int sender = 1; sender <= n; ++sender)
    EXPECT_NEAR(pause_of_sender(rig, s, sender), expected, 1e-9) << sender;
}

TEST(CongestionAnalysis, AVictimSharingAPausedSendersPortSlowsWithIt) {
  Rig rig = one_leaf();
  const auto& pfc = *rig.cat.congestion("pfc-only");
  const int n = 6;
  const double bytes = 1e9;
  // Uncongested, the receiver's port sets the pace: n flows of `bytes` at the line rate.
  const double duration = n * bytes / rig.nic();
  const double k = factor(rig, pfc, incast(n, bytes, true), duration);
  // Sender 1's port carries the incast flow and the victim at r/n each (2r/n); it is paused for
  // 1 - C / (r/2 + (n-1) r) of the time, its sender pushing r/2 into the incast: the victim's port is left
  // with r (1 - pause) and the transfer takes (2r/n) / that as long.
  const double pause = 1.0 - 1.0 / (0.5 + (n - 1));
  const double xoff = catalog::pfc_ingress_port(pfc, units::DataRate::from_si(rig.nic())).pause.xoff.si();
  const double f = pause * (1.0 - xoff / (0.5 * rig.nic() * pause) / duration);
  EXPECT_NEAR(k, (2.0 / n) / (1.0 - f), 1e-6);
  EXPECT_GT(k, 1.5);
}

TEST(CongestionAnalysis, ABufferThatHoldsTheBurstPausesNothingAndALargerOneNeverPausesMore) {
  Rig rig = one_leaf();
  auto spec = *rig.cat.congestion("pfc-only");
  const int n = 6;
  const double bytes = 4e6; // a short transfer: 24 MB into one port
  const double duration = n * bytes / rig.nic();
  double previous = 1e30;
  for (const double mb : {2.0, 4.0, 8.0, 16.0, 32.0, 64.0}) {
    spec.port_buffer.value = units::Bytes::from_si(mb * 1e6);
    const double k = factor(rig, spec, incast(n, bytes, true), duration);
    EXPECT_LE(k, previous + 1e-12) << mb << " MB";
    previous = k;
  }
  EXPECT_DOUBLE_EQ(previous, 1.0) << "64 MB per port absorbs the whole burst";
}

TEST(CongestionAnalysis, WithoutAnOverloadedPortNothingPausesOrSlows) {
  Rig rig = one_leaf();
  engine::Task t;
  t.kind = engine::TaskKind::transfer;
  for (int s = 1; s <= 4; ++s)
    t.flows.push_back({s, s + 4, 1e9}); // disjoint pairs
  plan::CongestionSummary summary;
  EXPECT_DOUBLE_EQ(factor(rig, *rig.cat.congestion("pfc-only"), t, 1e9 / rig.nic(), &summary), 1.0);
  EXPECT_TRUE(summary.ports.empty());
}

TEST(CongestionAnalysis, DcqcnHoldsAnIncastBelowXoffAndLeavesItsVictimAlone) {
  // The paper's parameters at 400 Gb/s: six flows settle on the marking ramp, far below XOFF, so PFC
  // never pauses and the victim keeps its rate.
  Rig rig = one_leaf();
  const auto& dcqcn = *rig.cat.congestion("dcqcn-paper");
  plan::CongestionSummary s;
  const double k = factor(rig, dcqcn, incast(6, 1e9, true), 6e9 / rig.nic(), &s);
  EXPECT_NEAR(k, 1.0, 0.02);
  EXPECT_DOUBLE_EQ(pause_of_sender(rig, s, 1), 0.0);
  bool marked = false;
  for (const auto& [e, p] : s.ports)
    marked = marked || p.marking > 0;
  EXPECT_TRUE(marked) << "the receiver's port marks packets";
}

TEST(CongestionAnalysis, PausesOfOnePriorityLeaveAnotherPriorityOnTheSamePortAlone) {
  // The incast of the victim test in a PFC priority of its own (storage's), the victim in the job's: the
  // victim's port is paused for the incast's class only.
  Rig rig = one_leaf();
  const auto& pfc = *rig.cat.congestion("pfc-only");
  const int n = 6;
  const double bytes = 1e9;
  const double duration = n * bytes / rig.nic();
  engine::Task victim;
  victim.kind = engine::TaskKind::transfer;
  victim.flows.push_back({1, 8, bytes});
  const auto shared = [&](int victim_class) {
    const auto in = incast(n, bytes, false);
    plan::CongestionAnalysis a(pfc, *rig.platform,
                               [&rig](std::int32_t e) { return rig.topo->edge(e).bandwidth.si(); });
    return a.factors({{&in, duration, "incast", 1.0, 1}, {&victim, duration, "victim", 1.0, victim_class}});
  };
  EXPECT_GT(shared(1).at(1), 1.5) << "same priority: the victim stops with the incast";
  EXPECT_NEAR(shared(0).at(1), 1.0, 1e-9) << "its own priority: the victim keeps its rate";
}
