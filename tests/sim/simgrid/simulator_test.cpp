// Semantics of the engine's task kinds on SimGrid. Each test builds its own SimGrid engine, which is a
// process-wide singleton: ctest runs every test in a process of its own.
#include "sim/simgrid/simulator.hpp"

#include <gtest/gtest.h>

using namespace dpusim;
using engine::Flow;
using engine::Load;
using engine::Task;
using engine::TaskKind;

namespace {

engine::PlatformDecl two_hosts(int cores, double bandwidth, double latency) {
  engine::PlatformDecl p;
  p.hosts = {{"a", 1.0, cores}, {"b", 1.0, cores}};
  p.links = {{"ab", bandwidth, latency}};
  p.routes = {{0, 1, {0}}};
  return p;
}

Task work(std::vector<Load> loads) {
  Task t;
  t.kind = TaskKind::work;
  t.loads = std::move(loads);
  return t;
}

Task delay(double seconds) {
  Task t;
  t.kind = TaskKind::delay;
  t.delay_s = seconds;
  return t;
}

} // namespace

TEST(Simulator, DelaysAndSequentialWork) {
  simgrid::Simulator sim(two_hosts(1, 1e9, 0));
  engine::TaskGraph g;
  const auto a = g.add(delay(0.25));
  const auto b = g.add(work({{0, 2.0}}));
  g.depend(a, b);
  const auto t = sim.execute(g);
  EXPECT_DOUBLE_EQ(t[static_cast<std::size_t>(a)].end, 0.25);
  EXPECT_DOUBLE_EQ(t[static_cast<std::size_t>(b)].start, 0.25);
  EXPECT_NEAR(t[static_cast<std::size_t>(b)].end, 2.25, 1e-9);
}

TEST(Simulator, DelaysAloneRunAsTimersToTheExactSecond) {
  // Pure delays share nothing: a thousand concurrent ones and a chain of three end exactly at their
  // sums, without a SimGrid activity (and so without a variable in the solver).
  simgrid::Simulator sim(two_hosts(1, 1e9, 0));
  engine::TaskGraph g;
  std::vector<engine::TaskId> concurrent;
  for (int i = 0; i < 1000; ++i)
    concurrent.push_back(g.add(delay(0.125)));
  engine::TaskId prev = -1;
  for (double s : {0.5, 0.25, 0.0625}) {
    const auto id = g.add(delay(s));
    if (prev >= 0)
      g.depend(prev, id);
    prev = id;
  }
  const auto t = sim.execute(g);
  for (auto id : concurrent)
    EXPECT_EQ(t[static_cast<std::size_t>(id)].end, 0.125);
  EXPECT_EQ(t[static_cast<std::size_t>(prev)].end, 0.8125);
  EXPECT_EQ(sim.stats().activities, 0U);
}

TEST(Simulator, LoadsShareTheCoresOfAHostFairly) {
  simgrid::Simulator sim(two_hosts(2, 1e9, 0));
  engine::TaskGraph g;
  for (int i = 0; i < 3; ++i)
    g.add(work({{0, 1.0}})); // three one-core loads on a two-core host: each gets 2/3 of a core
  const auto t = sim.execute(g);
  for (const auto& x : t)
    EXPECT_NEAR(x.end, 1.5, 1e-9);
}

TEST(Simulator, TransferTakesLatencyPlusBytesOverBandwidth) {
  simgrid::Simulator sim(two_hosts(1, 1e9, 1e-3));
  engine::TaskGraph g;
  Task t;
  t.kind = TaskKind::transfer;
  t.flows = {{0, 1, 1e9}};
  g.add(t);
  EXPECT_NEAR(sim.execute(g)[0].end, 1.001, 1e-9);
}

TEST(Simulator, CoupledTransferRunsAtItsBottleneckAndSlowsUnderCpuContention) {
  // 10 GB over a 100 GB/s link, coupled with 1 core-second of CPU work: CPU-bound, 1 s alone.
  simgrid::Simulator sim(two_hosts(1, 100e9, 0));
  engine::TaskGraph alone;
  Task t;
  t.kind = TaskKind::transfer;
  t.flows = {{0, 1, 10e9}};
  t.loads = {{0, 1.0}};
  alone.add(t);
  EXPECT_NEAR(sim.execute(alone)[0].end, 1.0, 1e-9);
  // The same next to 1 core-second of other work on the same single-core host: they share the core.
  engine::TaskGraph shared;
  shared.add(t);
  shared.add(work({{0, 1.0}}));
  const auto r = sim.execute(shared);
  EXPECT_NEAR(r[0].end, 2.0, 1e-9);
  EXPECT_NEAR(r[1].end, 2.0, 1e-9);
}

TEST(Simulator, PhasesAreTimedFromTheirOwnStart) {
  simgrid::Simulator sim(two_hosts(1, 1e9, 0));
  engine::TaskGraph g;
  g.add(work({{1, 0.5}}));
  EXPECT_NEAR(sim.execute(g)[0].end, 0.5, 1e-12);
  EXPECT_NEAR(sim.execute(g)[0].end, 0.5, 1e-12);
}

namespace {

engine::TaskGraph one_gigabyte_across() {
  engine::TaskGraph g;
  Task t;
  t.kind = TaskKind::transfer;
  t.flows = {{0, 1, 1e9}};
  g.add(t);
  return g;
}

} // namespace

TEST(Simulator, AFlappingLinkStallsItsFlowsWhileDownFromEachExecutionsStart) {
  // 1 GB over 1 GB/s, the link down for 0.2 s every 1 s from 0.3 s into each execution: 0.3 s moved,
  // 0.2 s stalled, 0.7 s more: 1.2 s, in each execution alike; a probe does not see the flaps.
  auto p = two_hosts(1, 1e9, 0);
  p.flaps = {{0, 0.2, 1.0, 0.3, 1.0}};
  simgrid::Simulator sim(p);
  const auto g = one_gigabyte_across();
  EXPECT_NEAR(sim.execute(g)[0].end, 1.2, 1e-6);
  EXPECT_NEAR(sim.execute(g)[0].end, 1.2, 1e-6);
  EXPECT_NEAR(sim.execute(g, {}, simgrid::Simulator::Flaps::none)[0].end, 1.0, 1e-6);
  EXPECT_NEAR(sim.execute(g)[0].end, 1.2, 1e-6);
}

TEST(Simulator, AFlapWhosePreviousDownReachesIntoTheStartHoldsTheLinkDownFromIt) {
  // Phase 0.9 s with 0.2 s down: down in [0, 0.1) and [0.9, 1.1): 0.8 GB by 0.9 s, the last 0.2 GB
  // from 1.1 s: 1.3 s.
  auto p = two_hosts(1, 1e9, 0);
  p.flaps = {{0, 0.2, 1.0, 0.9, 1.0}};
  simgrid::Simulator sim(p);
  EXPECT_NEAR(sim.execute(one_gigabyte_across())[0].end, 1.3, 1e-6);
}

TEST(Simulator, SharesOfOneLinkLostByFlapsDownAtOnceAddUp) {
  // A link standing for two (a pooled spine link), each half of it down for 0.5 s every 10 s, from 0 and
  // from 0.25 s: half the rate, then nothing, then half again: 0.25 GB by 0.75 s, the rest at the full
  // rate: 1.5 s (shares multiplied instead would leave a quarter in the overlap: 1.4375 s).
  auto p = two_hosts(1, 1e9, 0);
  p.flaps = {{0, 0.5, 10.0, 0.0, 0.5}, {0, 0.5, 10.0, 0.25, 0.5}};
  simgrid::Simulator sim(p);
  EXPECT_NEAR(sim.execute(one_gigabyte_across())[0].end, 1.5, 1e-6);
}

TEST(Simulator, RejectsCyclicGraphs) {
  simgrid::Simulator sim(two_hosts(1, 1e9, 0));
  engine::TaskGraph g;
  const auto a = g.add(work({{0, 1.0}}));
  const auto b = g.add(work({{0, 1.0}}));
  g.depend(a, b);
  g.depend(b, a);
  EXPECT_THROW((void)sim.execute(g), std::logic_error);
}

TEST(Simulator, BackgroundWorkRunsAlongsideAndStopsWithTheGraph) {
  // Background work (an agent using a core) shares the host with the graph's work, and is stopped when
  // the graph ends: 2 core-seconds of work on a single core next to an endless agent take 4 s.
  simgrid::Simulator sim(two_hosts(1, 1e9, 0));
  engine::TaskGraph g;
  Task agent;
  agent.kind = TaskKind::background;
  agent.loads = {{0, 1e9}};
  const auto a = g.add(agent);
  const auto w = g.add(work({{0, 2.0}}));
  const auto t = sim.execute(g);
  EXPECT_NEAR(t[static_cast<std::size_t>(w)].end, 4.0, 1e-9);
  EXPECT_NEAR(t[static_cast<std::size_t>(a)].end, 4.0, 1e-9);
  EXPECT_NEAR(t[static_cast<std::size_t>(a)].done, 2.0 / 1e9, 1e-12);
}

TEST(Simulator, ALimiterHostCapsTheLoadCoupledToIt) {
  // An agent coupled to a limiter of speed 0.25 takes a quarter of a core, leaving three quarters to the
  // graph's 2 core-seconds.
  engine::PlatformDecl p = two_hosts(1, 1e9, 0);
  p.hosts.push_back({"limiter", 0.25, 1});
  simgrid::Simulator sim(p);
  engine::TaskGraph g;
  Task agent;
  agent.kind = TaskKind::background;
  agent.loads = {{0, 1e9}, {2, 1e9}};
  const auto a = g.add(agent);
  const auto w = g.add(work({{0, 2.0}}));
  const auto t = sim.execute(g);
  EXPECT_NEAR(t[static_cast<std::size_t>(w)].end, 2.0 / 0.75, 1e-9);
  EXPECT_NEAR(t[static_cast<std::size_t>(a)].done * 1e9, 0.25 * 2.0 / 0.75, 1e-6);
}

TEST(Simulator, RoutesAreStoredOnlyForTheDeclaredPairs) {
  // Three hosts, one route (a -> b): b -> a was never declared, so a transfer along it is refused
  // rather than given an empty (infinitely fast) route.
  engine::PlatformDecl p;
  p.hosts = {{"a", 1.0, 1}, {"b", 1.0, 1}, {"c", 1.0, 1}};
  p.links = {{"ab", 1e9, 0}};
  p.routes = {{0, 1, {0}}};
  simgrid::Simulator sim(p);
  engine::TaskGraph ok;
  Task t;
  t.kind = TaskKind::transfer;
  t.flows = {{0, 1, 1e9}};
  ok.add(t);
  EXPECT_NEAR(sim.execute(ok)[0].end, 1.0, 1e-9);
  engine::TaskGraph missing;
  t.flows = {{1, 0, 1e9}};
  missing.add(t);
  EXPECT_THROW(sim.execute(missing), std::exception);
}

TEST(Simulator, ALinkListedTwiceInARouteCarriesTheBytesTwice) {
  engine::PlatformDecl p = two_hosts(1, 1e9, 0);
  p.routes = {{0, 1, {0, 0}}};
  simgrid::Simulator sim(p);
  engine::TaskGraph g;
  Task t;
  t.kind = TaskKind::transfer;
  t.flows = {{0, 1, 1e9}};
  g.add(t);
  EXPECT_NEAR(sim.execute(g)[0].end, 2.0, 1e-9);
}
