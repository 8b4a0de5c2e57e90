// RoCE congestion on the flow level against its closed forms: an incast alone delivers the port's rate in
// aggregate (PFC pauses each sender for 1 - C/(N r) of the time and costs the transfer nothing), a victim
// flow that shares a paused sender's port slows to the incast's pace C/N (head-of-line blocking), a
// buffer that absorbs the burst pauses nothing, a larger buffer never pauses more, and DCQCN keeps an
// incast's queue below XOFF. Over two hops: ECMP collisions cost nothing beyond max-min (the port after
// a shared up-link receives only what the up-link delivers), congestion spreading leaves the incast its
// port's rate, and a paused flow slows alone, not the rest of its transfer.
#include "models/congestion/pfc.hpp"
#include "sim/plan/congestion_analysis.hpp"
#include "sim/topology/topology.hpp"
#include "tests/support/collective_rig.hpp"

#include <gtest/gtest.h>
#include <map>
#include <vector>

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

TEST(CongestionAnalysis, AVictimSharingAPausedSendersPortSlowsToTheIncastsPace) {
  Rig rig = one_leaf();
  const auto& pfc = *rig.cat.congestion("pfc-only");
  const int n = 6;
  const double rate = rig.nic();
  const double xoff = catalog::pfc_ingress_port(pfc, units::DataRate::from_si(rate)).pause.xoff.si();
  for (const double bytes : {1e9, 1e12}) {
    // Uncongested, the receiver's port sets the incast's pace (r/n per flow); the victim, a transfer of
    // its own from sender 1 to an idle port, has the rest of sender 1's port: r (1 - 1/n).
    const double incast_lasts = n * bytes / rate;
    const double victim_rate = rate * (1.0 - 1.0 / n);
    const auto in = incast(n, bytes, false);
    engine::Task victim;
    victim.kind = engine::TaskKind::transfer;
    victim.flows.push_back({1, 8, bytes});
    plan::CongestionAnalysis a(pfc, *rig.platform,
                               [&rig](std::int32_t e) { return rig.topo->edge(e).bandwidth.si(); });
    const auto k = a.factors({{&in, incast_lasts, "incast"}, {&victim, bytes / victim_rate, "victim"}});
    EXPECT_NEAR(k.at(0), 1.0, 1e-9) << "the incast keeps the receiver's rate";
    // Sender 1 offers r/2 to each; the receiver serves every incast flow C/n, so sender 1's port is paused
    // for 1 - (C/n)/(r/2) of the time (once its queue reaches XOFF) and the victim keeps r/2 of the rest.
    const double pause = 1.0 - 2.0 / n;
    const double f = pause * (1.0 - xoff / (0.5 * rate * pause) / incast_lasts);
    EXPECT_NEAR(k.at(1), victim_rate / ((1.0 - f) * rate / 2), 1e-6) << bytes;
  }
  // A long transfer reaches the single switch's closed form: the victim moves at the incast's pace.
  const auto in = incast(n, 1e12, false);
  engine::Task victim;
  victim.kind = engine::TaskKind::transfer;
  victim.flows.push_back({1, 8, 1e12});
  plan::CongestionAnalysis a(pfc, *rig.platform,
                             [&rig](std::int32_t e) { return rig.topo->edge(e).bandwidth.si(); });
  const double uncongested = rate * (1.0 - 1.0 / n);
  const auto k = a.factors({{&in, n * 1e12 / rate, "incast"}, {&victim, 1e12 / uncongested, "victim"}});
  const auto closed = congestion::victim_rate(units::DataRate::from_si(rate), n,
                                              units::DataRate::from_si(rate), units::DataRate::from_si(rate))
                          .si();
  EXPECT_NEAR(uncongested / k.at(1), closed, 1e-3 * closed);
}

TEST(CongestionAnalysis, AVictimInTheIncastsOwnTransferAlreadyMovesAtItsPace) {
  // The victim flow in the incast's transfer: its flows progress together, the victim at r/n already,
  // which is what the paused port leaves it.
  Rig rig = one_leaf();
  const int n = 6;
  const double bytes = 1e9;
  EXPECT_NEAR(factor(rig, *rig.cat.congestion("pfc-only"), incast(n, bytes, true), n * bytes / rig.nic()),
              1.0, 1e-9);
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
  // Uncongested, the victim has what the incast flow leaves of sender 1's port.
  const double victim_lasts = bytes / (rig.nic() * (1.0 - 1.0 / n));
  const auto shared = [&](int victim_class) {
    const auto in = incast(n, bytes, false);
    plan::CongestionAnalysis a(pfc, *rig.platform,
                               [&rig](std::int32_t e) { return rig.topo->edge(e).bandwidth.si(); });
    return a.factors(
        {{&in, duration, "incast", 1.0, 1}, {&victim, victim_lasts, "victim", 1.0, victim_class}});
  };
  EXPECT_GT(shared(1).at(1), 1.5) << "same priority: the victim stops with the incast";
  EXPECT_NEAR(shared(0).at(1), 1.0, 1e-9) << "its own priority: the victim keeps its rate";
}

namespace {

/// 64 single-NIC nodes: two leaves of 32 ports, each with an up-link to each of 32 spines.
Rig two_leaves() {
  return Rig({.nodes = 64, .gpus = 1, .nics = 1, .pcie_switches = 1});
}

/// The spine a route from `src` to `dst` crosses.
topology::VertexId spine_of(Rig& rig, int src, int dst) {
  const auto& topo = *rig.topo;
  for (const auto e : rig.platform->route(src, dst).links)
    if (e < topo.num_edges() && topo.vertex(topo.edge_target(e)).kind == topology::VertexKind::spine)
      return topo.edge_target(e);
  ADD_FAILURE() << "no spine between " << src << " and " << dst;
  return {};
}

plan::CongestionAnalysis analysis(Rig& rig, const catalog::CongestionSpec& spec) {
  return {spec, *rig.platform, [&rig](std::int32_t e) { return rig.topo->edge(e).bandwidth.si(); }};
}

} // namespace

TEST(CongestionAnalysis, EcmpCollisionsOfTwoToFourFlowsCostNothingBeyondMaxMin) {
  // k flows from distinct senders of leaf 0 to distinct receivers of leaf 1 that the hash put on one
  // spine: max-min gives each r/k on the shared up-link. PFC pauses the senders at leaf 0 for the up-link;
  // the spine's port down to leaf 1 receives only what that up-link delivers (r in all), so nothing
  // pauses the up-link, and the transfer takes what max-min gave it.
  Rig rig = two_leaves();
  const auto& pfc = *rig.cat.congestion("pfc-only");
  std::map<topology::VertexId, std::vector<std::pair<int, int>>> by_spine;
  std::vector<bool> sending(32, false), receiving(32, false);
  for (int shift = 0; shift < 32; ++shift)
    for (int s = 0; s < 32; ++s) {
      const int d = 32 + (s + shift) % 32;
      auto& on = by_spine[spine_of(rig, s, d)];
      const bool free =
          std::none_of(on.begin(), on.end(), [&](const auto& p) { return p.first == s || p.second == d; });
      if (free)
        on.emplace_back(s, d);
    }
  std::vector<std::pair<int, int>> colliding;
  for (const auto& [spine, pairs] : by_spine)
    if (pairs.size() >= 4) {
      colliding = pairs;
      break;
    }
  ASSERT_GE(colliding.size(), 4U);
  const double bytes = 1e9;
  for (int k = 2; k <= 4; ++k) {
    engine::Task t;
    t.kind = engine::TaskKind::transfer;
    for (int i = 0; i < k; ++i)
      t.flows.push_back({colliding[static_cast<std::size_t>(i)].first,
                         colliding[static_cast<std::size_t>(i)].second, bytes});
    auto a = analysis(rig, pfc);
    const auto factors = a.flow_factors({{&t, k * bytes / rig.nic(), "collision"}}).at(0);
    for (const double f : factors)
      EXPECT_LE(f, 1.004) << k << " flows";
    // The senders are paused at leaf 0 (1 - 1/k of the time, less the buffer's start); no port of the
    // spine or of leaf 1 pauses anything.
    const auto& topo = *rig.topo;
    for (const auto& [e, port] : a.summary().ports) {
      if (port.pause_fraction > 0) {
        EXPECT_EQ(topo.vertex(topo.edge_source(e)).kind, topology::VertexKind::nic)
            << k << " flows: " << e << " paused " << port.pause_fraction;
      }
    }
  }
}

TEST(CongestionAnalysis, CongestionSpreadingOverTwoHopsLeavesTheIncastItsPortsRate) {
  // n senders of leaf 0, each on a spine of its own, into one receiver of leaf 1; a victim from another
  // sender of leaf 0 to an idle port of leaf 1 shares its spine with incast flow 0. The receiver's port
  // pauses the spines' ports into leaf 1, those pause leaf 0's up-links, those the senders: the victim
  // stops with incast flow 0 all the way back (C/n, the single switch's closed form), and the incast
  // keeps the receiver's rate.
  Rig rig = two_leaves();
  const auto& pfc = *rig.cat.congestion("pfc-only");
  const int n = 4;
  const int receiver = 32;
  std::vector<int> senders;
  std::vector<topology::VertexId> spines;
  for (int s = 0; s < 32 && static_cast<int>(senders.size()) < n; ++s) {
    const auto spine = spine_of(rig, s, receiver);
    if (std::find(spines.begin(), spines.end(), spine) == spines.end()) {
      senders.push_back(s);
      spines.push_back(spine);
    }
  }
  ASSERT_EQ(static_cast<int>(senders.size()), n);
  int victim_src = -1;
  int victim_dst = -1;
  for (int s = 0; s < 32 && victim_src < 0; ++s) {
    if (std::find(senders.begin(), senders.end(), s) != senders.end())
      continue;
    for (int d = 33; d < 64 && victim_src < 0; ++d)
      if (spine_of(rig, s, d) == spines[0]) {
        victim_src = s;
        victim_dst = d;
      }
  }
  ASSERT_GE(victim_src, 0);
  const double bytes = 1e12; // long: the buffers' start is negligible
  const double rate = rig.nic();
  engine::Task in;
  in.kind = engine::TaskKind::transfer;
  for (const int s : senders)
    in.flows.push_back({s, receiver, bytes});
  engine::Task victim;
  victim.kind = engine::TaskKind::transfer;
  victim.flows.push_back({victim_src, victim_dst, bytes});
  // Uncongested: the incast at r/n per flow, the victim with the rest of spine 0's links.
  const double uncongested = rate * (1.0 - 1.0 / n);
  auto a = analysis(rig, pfc);
  const auto k =
      a.flow_factors({{&in, n * bytes / rate, "incast"}, {&victim, bytes / uncongested, "victim"}});
  for (const double f : k.at(0))
    EXPECT_LE(f, 1.004) << "an incast flow";
  const auto closed = congestion::victim_rate(units::DataRate::from_si(rate), n,
                                              units::DataRate::from_si(rate), units::DataRate::from_si(rate))
                          .si();
  EXPECT_NEAR(uncongested / k.at(1).at(0), closed, 0.01 * closed);
}

namespace {

/// An incast of n senders into node 0 (`bytes` each) and, in a transfer of its own, `flows` (the first
/// from sender 1's port), both from time 0 as the max-min run timed them: the incast for n bytes/r, the
/// transfer at r (1 - 1/n), what the incast flow leaves of sender 1's port, for its largest flow.
struct BesideIncast {
  engine::TaskGraph graph;
  engine::TaskId incast = -1;
  engine::TaskId transfer = -1;
  double incast_s = 0;
  double transfer_s = 0;
  std::vector<engine::TaskTiming> timings;

  BesideIncast(const Rig& rig, int n, double bytes, std::vector<engine::Flow> flows) {
    incast = graph.add(::incast(n, bytes, false));
    engine::Task t;
    t.kind = engine::TaskKind::transfer;
    double largest = 0;
    for (const auto& f : flows)
      largest = std::max(largest, f.bytes);
    t.flows = std::move(flows);
    transfer = graph.add(std::move(t));
    incast_s = n * bytes / rig.nic();
    transfer_s = largest / (rig.nic() * (1.0 - 1.0 / n));
    timings.resize(2);
    timings[static_cast<std::size_t>(incast)] = {0, incast_s};
    timings[static_cast<std::size_t>(transfer)] = {0, transfer_s};
  }
  /// Each flow's factor of the one step of the analysis, the two together as the max-min run timed them.
  std::vector<std::vector<double>> factors(plan::CongestionAnalysis& a) const {
    return a.flow_factors(
        {{&graph.task(incast), incast_s, "incast"}, {&graph.task(transfer), transfer_s, "transfer"}});
  }
};

} // namespace

TEST(CongestionAnalysis, AFlowThatSharesAPausedPortSlowsAloneNotTheRestOfItsTransfer) {
  // A transfer of four disjoint flows, the first from an incast sender's port: that flow is the victim;
  // the three others keep their rate, and apply() stretches only the victim's bytes.
  Rig rig({.nodes = 16, .gpus = 1, .nics = 1, .pcie_switches = 1});
  const auto& pfc = *rig.cat.congestion("pfc-only");
  const double bytes = 1e9;
  BesideIncast c(rig, 6, bytes, {{1, 8, bytes}, {9, 10, bytes}, {11, 12, bytes}, {13, 14, bytes}});
  auto a = analysis(rig, pfc);
  const auto k = c.factors(a);
  EXPECT_GT(k.at(1).at(0), 2.0) << "the victim";
  for (std::size_t f = 1; f < 4; ++f)
    EXPECT_DOUBLE_EQ(k.at(1).at(f), 1.0) << "flow " << f;
  a.reset();
  ASSERT_TRUE(a.apply(c.graph, c.timings));
  const auto& stretched = c.graph.task(c.transfer).flows;
  EXPECT_NEAR(stretched[0].bytes, k.at(1).at(0) * bytes, 1e-6 * bytes);
  for (std::size_t f = 1; f < 4; ++f)
    EXPECT_DOUBLE_EQ(stretched[f].bytes, bytes) << "flow " << f;
  EXPECT_EQ(a.summary().slowed, 1);
}

TEST(CongestionAnalysis, TheMellanoxLikePresetKeepsAnIncastPortInUseAtItsSteadyState) {
  // dcqcn-mlx at 100 Gb/s (Kmin 400 KB below XOFF, so ECN marks before PFC pauses): started at the line
  // rate its flows are cut far below their share and climb back by one small increase per 300 us, which
  // left 26-49% of the port in use over the averaged window (transfers stretched 2.0-3.8x); from their
  // share they hover around it.
  Rig rig({.nodes = 9, .gpus = 1, .nics = 1, .pcie_switches = 1, .nic_gbit = 100});
  const auto& mlx = *rig.cat.congestion("dcqcn-mlx");
  for (const int n : {2, 4, 8}) {
    plan::CongestionSummary s;
    const double bytes = 1e9;
    const double k = factor(rig, mlx, incast(n, bytes, false), n * bytes / rig.nic(), &s);
    double utilisation = 1;
    for (const auto& [e, p] : s.ports)
      utilisation = std::min(utilisation, p.utilisation);
    EXPECT_GT(utilisation, 0.95) << n << " senders";
    EXPECT_LT(k, 1.0 / 0.95) << n << " senders";
    EXPECT_TRUE(s.unmarked.empty()) << "Kmin is below XOFF at 100 Gb/s";
  }
}

TEST(CongestionAnalysis, APresetWhoseMarkingStartsAboveXoffIsSaidToDoNothing) {
  // dcqcn-mlx scales Kmin with the line rate: 1.6 MB at 400 Gb/s, above the XOFF its 1 MB port buffer
  // leaves. PFC pauses first; the summary names the port speed and both thresholds.
  Rig rig = one_leaf();
  const auto& mlx = *rig.cat.congestion("dcqcn-mlx");
  plan::CongestionSummary s;
  (void)factor(rig, mlx, incast(4, 1e9, false), 4e9 / rig.nic(), &s);
  ASSERT_EQ(s.unmarked.size(), 1U);
  const auto& [rate, thresholds] = *s.unmarked.begin();
  EXPECT_EQ(rate, std::llround(rig.nic()));
  const auto xoff = catalog::pfc_ingress_port(mlx, units::DataRate::from_si(rig.nic())).pause.xoff.si();
  EXPECT_NEAR(thresholds.first, 1.6e6, 1.0);
  EXPECT_DOUBLE_EQ(thresholds.second, xoff);
  EXPECT_GT(thresholds.first, thresholds.second);
}

TEST(CongestionAnalysis, DcqcnCostsShortTransfersItsStartAndLongOnesOnlyItsSteadyState) {
  // Flows start at the line rate: until the first marks cut them, the queue builds; the cuts overshoot
  // and the flows climb back. On an incast of 1-16 MB per flow that start is a share of the transfer
  // (a packet-level simulator finds 17-40% on such transfers; the fluid model 52%, 66% and 24% at 1, 4
  // and 16 MB per flow here), so DCQCN costs more than PFC alone, whose buffer absorbs the burst; on a
  // long transfer only the steady state is left (the paper's preset keeps the port full).
  Rig rig({.nodes = 9, .gpus = 1, .nics = 1, .pcie_switches = 1, .nic_gbit = 100});
  const auto& dcqcn = *rig.cat.congestion("dcqcn-paper");
  const auto& pfc = *rig.cat.congestion("pfc-only");
  const int n = 8;
  double previous = 1e30;
  for (const double mb : {1.0, 4.0, 16.0, 64.0, 1000.0}) {
    const double bytes = mb * 1e6;
    const double lasts = n * bytes / rig.nic();
    const double with_dcqcn = factor(rig, dcqcn, incast(n, bytes, false), lasts);
    const double pfc_alone = factor(rig, pfc, incast(n, bytes, false), lasts);
    RecordProperty("stretch_" + std::to_string(static_cast<int>(mb)) + "MB", std::to_string(with_dcqcn));
    // Once a transfer outlasts the start (a few hundred microseconds here), a longer one pays a smaller
    // share of its time for it; a shorter one may end before the cuts have taken their full effect.
    if (mb >= 16) {
      EXPECT_LE(with_dcqcn, previous + 1e-9) << mb << " MB: a longer transfer pays a smaller share";
    }
    previous = with_dcqcn;
    EXPECT_NEAR(pfc_alone, 1.0, 1e-9) << mb << " MB: an incast alone costs PFC nothing";
    if (mb <= 16) {
      EXPECT_GT(with_dcqcn, 1.1) << mb << " MB";
      EXPECT_LT(with_dcqcn, 2.0) << mb << " MB";
    }
  }
  EXPECT_LT(previous, 1.01) << "1 GB per flow: the start is a negligible share";
}

TEST(CongestionAnalysis, AVictimIsHeldBackOnlyWhileWhatHoldsItBackRuns) {
  // A victim beside an incast as in AFlowThatSharesAPausedPortSlowsAlone, but with 20 times the bytes,
  // so that it outlasts the incast it meets: its flow moves at the incast's pace only until the incast
  // ends, then at its uncongested rate again, so its stretch is 1 + (overlap / d)(1 - 1/k), not k. An
  // incast within one transfer holds that transfer back for its whole length, and keeps its factor.
  Rig rig({.nodes = 16, .gpus = 1, .nics = 1, .pcie_switches = 1});
  const auto& pfc = *rig.cat.congestion("pfc-only");
  const int n = 6;
  const double bytes = 1e9;
  BesideIncast c(rig, n, bytes, {{1, 8, 20 * bytes}, {9, 10, 20 * bytes}});
  auto a = analysis(rig, pfc);
  // The victim's factor over the incast's time, as the one step of the analysis gives it.
  const double k = c.factors(a).at(1).at(0);
  ASSERT_GT(k, 2.0);
  a.reset();
  ASSERT_TRUE(a.apply(c.graph, c.timings));
  const double capped = 1 + c.incast_s / c.transfer_s * (1 - 1 / k);
  ASSERT_LT(capped, k);
  EXPECT_NEAR(c.graph.task(c.transfer).flows[0].bytes, capped * 20 * bytes, 1e-6 * capped * 20 * bytes);
  EXPECT_DOUBLE_EQ(c.graph.task(c.transfer).flows[1].bytes, 20 * bytes);
  // Alone, an incast is its own congestion for as long as it runs: no cap (its factor is 1 here, the
  // port shared as max-min shares it, so nothing changes either way).
  engine::TaskGraph alone;
  const auto only = alone.add(incast(n, bytes, true));
  std::vector<engine::TaskTiming> one(1);
  one[0] = {0, c.incast_s};
  auto b = analysis(rig, pfc);
  const double self = b.factors({{&alone.task(only), c.incast_s, "incast"}}).at(0);
  b.reset();
  (void)b.apply(alone, one);
  EXPECT_NEAR(alone.task(only).flows.back().bytes, std::max(1.0, self) * bytes, 1e-6 * bytes);
}
