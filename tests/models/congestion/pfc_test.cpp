// The PFC fluid model at one switch against the closed forms of docs/models/congestion.md.
#include "models/congestion/pfc.hpp"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace dpusim;
using namespace dpusim::congestion;
using namespace dpusim::units;

namespace {

// 100 Gb/s ports, XOFF 100 KB, XON one 1 KB packet below, headroom from the mlx5 formula for a 10 m cable.
IngressPort port(double gbps = 100, double xoff = 100e3) {
  const auto rate = gbit_per_s(gbps);
  return IngressPort{rate, PauseThresholds{bytes(xoff), bytes(xoff - 1e3)},
                     headroom_mlx5(rate, 10, bytes(1000)), nanoseconds(500)};
}

/// N senders at line rate r, each on its own ingress port, into egress 0; egress 1 idle.
PfcSwitch incast_switch(int senders, double xoff = 100e3) {
  PfcSwitch sw;
  for (int i = 0; i < senders; ++i)
    sw.ingress.push_back(port(100, xoff));
  sw.egress = {EgressPort{gbit_per_s(100)}, EgressPort{gbit_per_s(100)}};
  sw.buffer = megabytes(64);
  return sw;
}

std::vector<PfcFlow> incast_flows(int senders) {
  std::vector<PfcFlow> flows;
  for (int i = 0; i < senders; ++i)
    flows.push_back(PfcFlow{i, 0, gbit_per_s(100)});
  return flows;
}

} // namespace

TEST(PfcIncast, DeliversThePortRateSharedEquallyAndPausesAsTheClosedForm) {
  for (int n : {2, 4, 8, 16}) {
    const auto r = simulate(incast_switch(n), incast_flows(n));
    double total = 0;
    for (int i = 0; i < n; ++i) {
      total += r.delivered[static_cast<std::size_t>(i)].si();
      EXPECT_NEAR(r.delivered[static_cast<std::size_t>(i)] / (gbit_per_s(100) / n), 1.0, 0.01) << n;
      // 1 - C/(N r): 0.5, 0.75, 0.875, 0.9375.
      EXPECT_NEAR(r.pause_fraction[static_cast<std::size_t>(i)],
                  incast_pause_fraction(gbit_per_s(100), n, gbit_per_s(100)), 0.01)
          << n;
    }
    EXPECT_NEAR(total / gbit_per_s(100).si(), 1.0, 0.01) << n;
    EXPECT_NEAR(r.utilisation[0], 1.0, 0.01);
    EXPECT_EQ(r.headroom_overflow.si(), 0.0); // the mlx5 headroom absorbs the 500 ns reaction
  }
}

TEST(PfcIncast, PauseFractionClosedFormValues) {
  EXPECT_DOUBLE_EQ(incast_pause_fraction(gbit_per_s(100), 4, gbit_per_s(100)), 0.75);
  EXPECT_DOUBLE_EQ(incast_pause_fraction(gbit_per_s(400), 2, gbit_per_s(100)), 0.0); // no congestion
}

// Head-of-line blocking: the victim V shares ingress port 0 with incast flow A (both from one sender whose
// link carries r); V goes to the idle egress 1. While port 0 may send, A gets r - v and V gets v; A drains
// at C/N, so port 0 is open C / (N (r - v)) of the time and V gets v C / (N (r - v)).
TEST(PfcVictim, IsSlowedAsTheClosedFormSays) {
  for (int n : {2, 4, 8}) {
    auto flows = incast_flows(n);
    flows.push_back(PfcFlow{0, 1, gbit_per_s(20)});
    const auto r = simulate(incast_switch(n), flows);
    const auto expected = victim_rate(gbit_per_s(100), n, gbit_per_s(100), gbit_per_s(20));
    // N = 4: 20 x 100 / (4 x 80) = 6.25 Gb/s, under a third of what it asked for, with egress 1 idle.
    EXPECT_NEAR(r.delivered.back() / expected, 1.0, 0.02) << n;
    EXPECT_LT(r.delivered.back(), gbit_per_s(20) * 0.7) << n;
    EXPECT_NEAR(r.utilisation[1], expected / gbit_per_s(100), 0.01) << n; // egress 1 mostly idle
  }
  EXPECT_NEAR(victim_rate(gbit_per_s(100), 4, gbit_per_s(100), gbit_per_s(20)).si(), gbit_per_s(6.25).si(),
              1e-3);
}

TEST(PfcVictim, IsNotSlowedWithoutIncast) {
  // One sender into egress 0 at line rate: no pause, the victim gets what it offers.
  auto flows = incast_flows(1);
  flows.push_back(PfcFlow{0, 1, gbit_per_s(20)});
  const auto r = simulate(incast_switch(1), flows);
  EXPECT_EQ(r.pause_fraction[0], 0.0);
  EXPECT_NEAR(r.delivered.back() / gbit_per_s(20), 1.0, 1e-6);
  EXPECT_NEAR(r.delivered[0] / gbit_per_s(80), 1.0, 1e-6);
}

TEST(PfcIncast, NoIncastNoPause) {
  // Four senders at 20 Gb/s each into one 100 Gb/s egress: nothing queues.
  auto sw = incast_switch(4);
  std::vector<PfcFlow> flows;
  for (int i = 0; i < 4; ++i)
    flows.push_back(PfcFlow{i, 0, gbit_per_s(20)});
  const auto r = simulate(sw, flows);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r.pause_fraction[static_cast<std::size_t>(i)], 0.0);
    EXPECT_NEAR(r.delivered[static_cast<std::size_t>(i)] / gbit_per_s(20), 1.0, 1e-6);
  }
  EXPECT_NEAR(r.utilisation[0], 0.8, 1e-6);
  EXPECT_LT(r.peak_buffer, bytes(1));
}

TEST(PfcIncast, ALargerXoffNeverPausesMore) {
  // Over a finite run a deeper threshold takes longer to fill before the first pause; never more pausing.
  const PfcOptions run{microseconds(400), microseconds(0), {}};
  double previous = 1.0;
  for (double xoff : {20e3, 50e3, 100e3, 200e3, 400e3, 800e3}) {
    const auto r = simulate(incast_switch(4, xoff), incast_flows(4), run);
    EXPECT_LE(r.pause_fraction[0], previous + 1e-9) << xoff;
    EXPECT_LE(r.peak_occupancy[0], bytes(xoff) + incast_switch(4, xoff).ingress[0].headroom) << xoff;
    previous = r.pause_fraction[0];
  }
  EXPECT_LT(previous, 0.75); // 800 KB takes 43 us of the 400 us to fill: visibly less than steady state
}

TEST(PfcHeadroom, TooLittleHeadroomOverflows) {
  auto sw = incast_switch(4);
  for (auto& p : sw.ingress)
    p.headroom = bytes(0);
  const auto r = simulate(sw, incast_flows(4));
  // 500 ns at 100 Gb/s is 6.25 KB arriving above XOFF at each pause.
  EXPECT_GT(r.headroom_overflow.si(), 0.0);
}

TEST(PfcHeadroom, FormulasAgreeOnOrder) {
  // mlx5 at 100 Gb/s, 100 m, 1500 B MTU: (301 + 216) x 100 + 2.72 x 1500 = 55,780 B.
  EXPECT_NEAR(headroom_mlx5(gbit_per_s(100), 100, bytes(1500)).si(), 55780.0, 1e-6);
  // 100 m of fibre is 0.5 us each way: 12.5 KB round trip at 100 Gb/s, 3 KB of MTUs, 1 us response.
  const auto bound = headroom_lower_bound(gbit_per_s(100), microseconds(0.5), bytes(1500), microseconds(1));
  EXPECT_NEAR(bound.si(), 12500 + 3000 + 12500, 1e-6);
  for (double gbps : {25.0, 100.0, 400.0, 800.0})
    for (double metres : {1.0, 10.0, 100.0})
      EXPECT_GE(headroom_mlx5(gbit_per_s(gbps), metres, bytes(4096)),
                headroom_lower_bound(gbit_per_s(gbps), nanoseconds(5 * metres), bytes(4096), nanoseconds(0)))
          << gbps << " Gb/s, " << metres << " m";
}

TEST(PfcThresholds, AreValidated) {
  auto sw = incast_switch(2);
  sw.ingress[0].pause.xon = bytes(200e3); // above XOFF
  sw.ingress[1].pause.xoff = bytes(-5);
  auto errors = validate(sw, incast_flows(2));
  EXPECT_TRUE(refuses(errors, "ingress[0].xon"));
  EXPECT_TRUE(refuses(errors, "ingress[1].xoff"));
  EXPECT_THROW((void)simulate(sw, incast_flows(2)), std::invalid_argument);

  sw = incast_switch(2);
  sw.ingress[0].headroom = megabytes(65); // larger than the 64 MB buffer
  sw.ingress[1].headroom = bytes(-1);
  errors = validate(sw, incast_flows(2));
  EXPECT_TRUE(refuses(errors, "ingress[0].headroom"));
  EXPECT_TRUE(refuses(errors, "ingress[1].headroom"));

  sw = incast_switch(2);
  auto flows = incast_flows(2);
  flows[1].egress = 7;
  EXPECT_TRUE(refuses(validate(sw, flows), "flows[1].egress"));
  EXPECT_TRUE(validate(incast_switch(2), incast_flows(2)).empty());
}
