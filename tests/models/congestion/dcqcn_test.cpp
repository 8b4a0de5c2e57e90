// The DCQCN fluid model: its fixed point against its own integration, and properties of both. The
// parameter set is the DCQCN paper's (docs/models/congestion.md, "Parameters"); the feedback delay of 4 us
// stands for a datacenter round trip plus CNP generation (an assumption of these tests).
#include "models/congestion/dcqcn.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <stdexcept>

using namespace dpusim;
using namespace dpusim::congestion;
using namespace dpusim::units;

namespace {

DcqcnParams paper() {
  DcqcnParams p;
  p.k_min = bytes(5e3);
  p.k_max = bytes(200e3);
  p.p_max = 0.01;
  p.g = 1.0 / 256;
  p.alpha_interval = microseconds(50);
  p.decrease_interval = microseconds(50);
  p.increase_timer = microseconds(55);
  p.byte_counter = megabytes(10);
  p.rate_ai = gbit_per_s(0.04);
  p.rate_hai = gbit_per_s(0.2);
  p.fast_recovery_steps = 5;
  p.min_rate = gbit_per_s(0.1);
  p.packet = bytes(1000);
  return p;
}

Bottleneck link(double gbps, double feedback_us = 4) {
  return Bottleneck{gbit_per_s(gbps), microseconds(feedback_us), std::nullopt};
}

std::vector<FlowGroup> identical(int n, double gbps) {
  return {FlowGroup{n, gbit_per_s(gbps), gbit_per_s(gbps)}};
}

double relative(double measured, double expected) {
  return std::abs(measured - expected) / expected;
}

} // namespace

TEST(DcqcnParams, ThePaperSetIsValid) {
  EXPECT_TRUE(validate(paper()).empty());
}

TEST(DcqcnParams, RefusesEachBadValueByName) {
  auto p = paper();
  p.k_min = bytes(-1);
  EXPECT_TRUE(refuses(validate(p), "k_min"));
  p = paper();
  p.k_min = bytes(300e3); // above k_max
  EXPECT_TRUE(refuses(validate(p), "k_min"));
  for (double bad : {0.0, -0.1, 1.5, std::nan("")}) {
    p = paper();
    p.p_max = bad;
    EXPECT_TRUE(refuses(validate(p), "p_max")) << bad;
    p = paper();
    p.g = bad;
    EXPECT_TRUE(refuses(validate(p), "g")) << bad;
  }
  p = paper();
  p.increase_timer = seconds(0);
  p.decrease_interval = seconds(-1);
  p.fast_recovery_steps = -1;
  p.min_rate = gbit_per_s(0);
  const auto errors = validate(p);
  EXPECT_TRUE(refuses(errors, "increase_timer"));
  EXPECT_TRUE(refuses(errors, "decrease_interval"));
  EXPECT_TRUE(refuses(errors, "fast_recovery_steps"));
  EXPECT_TRUE(refuses(errors, "min_rate"));
  EXPECT_THROW((void)fixed_point(p, gbit_per_s(40), 2), std::invalid_argument);
}

TEST(DcqcnMarking, IsZeroBelowKminLinearToPmaxAndOneAboveKmax) {
  const auto p = paper();
  EXPECT_EQ(marking_probability(p, bytes(4e3)), 0.0);
  EXPECT_DOUBLE_EQ(marking_probability(p, bytes(102.5e3)), 0.005);
  EXPECT_DOUBLE_EQ(marking_probability(p, bytes(200e3)), 0.01);
  EXPECT_EQ(marking_probability(p, bytes(201e3)), 1.0);
  EXPECT_NEAR(queue_for_marking(p, 0.005).si(), 102.5e3, 1e-6);
}

TEST(DcqcnFixedPoint, SmallMarkingLimitAgreesWhereMarksAreRare) {
  // The cube-root closed form drops terms of order p B and p T R: within 20% at 400 Gb/s, N = 2, where
  // p* is 4e-5.
  const auto fp = fixed_point(paper(), gbit_per_s(400), 2);
  EXPECT_NEAR(approximate_marking(paper(), fp.rate), fp.marking, 0.2 * fp.marking);
}

// The requirement: integration and fixed point agree within 5% on rates and queue. Measured
// differences (200 ms, averaged over the last 100 ms): queue under 0.06%, marking under 0.4%, rates under
// 0.02% (docs/models/congestion.md has the table).
TEST(DcqcnIntegration, MatchesTheFixedPointWithinFivePercent) {
  struct Case {
    double gbps;
    int flows;
  };
  for (const auto c : {Case{40, 2}, Case{40, 10}, Case{400, 2}, Case{400, 10}, Case{400, 64}}) {
    const auto fp = fixed_point(paper(), gbit_per_s(c.gbps), c.flows);
    ASSERT_TRUE(fp.on_ramp) << c.gbps << " Gb/s, N = " << c.flows;
    const auto s = integrate(paper(), link(c.gbps), identical(c.flows, c.gbps));
    EXPECT_LT(relative(s.rate[0].si(), fp.rate.si()), 0.05) << c.gbps << " Gb/s, N = " << c.flows;
    EXPECT_LT(relative(s.queue.si(), fp.queue.si()), 0.05) << c.gbps << " Gb/s, N = " << c.flows;
    EXPECT_LT(relative(s.marking, fp.marking), 0.05) << c.gbps << " Gb/s, N = " << c.flows;
    EXPECT_GT(s.utilisation, 0.99);
  }
}

TEST(DcqcnIntegration, SixtyFourFlowsAtFortyGigabitsMarkBeyondTheRamp) {
  // With the paper's set, 64 flows at 40 Gb/s need p* = 6.0%, above Pmax = 1%: no fixed point on the
  // ramp, the queue is held around Kmax where marking jumps to 1. Rates still converge to C/N.
  const auto p = paper();
  const auto fp = fixed_point(p, gbit_per_s(40), 64);
  EXPECT_FALSE(fp.on_ramp);
  EXPECT_GT(fp.marking, p.p_max);
  const auto s = integrate(p, link(40), identical(64, 40));
  EXPECT_LT(relative(s.rate[0].si(), fp.rate.si()), 0.05);
  EXPECT_LT(s.queue_min, p.k_max);
  EXPECT_GT(s.queue_max, p.k_max);
}

TEST(DcqcnIntegration, FlowsStartingApartConvergeToTheFairShare) {
  const std::vector<FlowGroup> flows{{1, gbit_per_s(40), gbit_per_s(40)}, {1, gbit_per_s(40), gbit_per_s(1)}};
  const auto s = integrate(paper(), link(40), flows, {milliseconds(400), milliseconds(300), {}, {}});
  EXPECT_LT(relative(s.rate[0].si(), gbit_per_s(20).si()), 0.05);
  EXPECT_LT(relative(s.rate[1].si(), gbit_per_s(20).si()), 0.05);
}

TEST(DcqcnFixedPoint, MoreFlowsQueueMore) {
  // p* rises with N; q* with it, until p* leaves the ramp and q* stays at Kmax (40 Gb/s, N >= 32).
  for (double gbps : {40.0, 400.0}) {
    double previous_marking = 0;
    double previous_queue = 0;
    for (int n : {1, 2, 4, 10, 16, 32, 64}) {
      const auto fp = fixed_point(paper(), gbit_per_s(gbps), n);
      EXPECT_GT(fp.marking, previous_marking) << gbps << " Gb/s, N = " << n;
      EXPECT_GE(fp.queue.si(), previous_queue) << gbps << " Gb/s, N = " << n;
      if (fp.on_ramp && n > 1) {
        EXPECT_GT(fp.queue.si(), previous_queue) << gbps << " Gb/s, N = " << n;
      }
      EXPECT_GT(fp.target_rate, fp.rate);
      previous_marking = fp.marking;
      previous_queue = fp.queue.si();
    }
  }
  EXPECT_GT(integrate(paper(), link(400), identical(10, 400)).queue,
            integrate(paper(), link(400), identical(2, 400)).queue);
}

TEST(DcqcnIntegration, QueueStaysBetweenKminAndKmaxWithThePaperSet) {
  const auto p = paper();
  for (int n : {2, 10}) {
    const auto s = integrate(p, link(40), identical(n, 40));
    EXPECT_GE(s.queue_min, p.k_min) << n;
    EXPECT_LE(s.queue_max, p.k_max) << n;
  }
}

TEST(DcqcnIntegration, ALongFeedbackDelayDestabilisesTheLoop) {
  // The fixed point does not depend on tau*, its stability does (the paper's phase-margin analysis):
  // at 400 Gb/s with two flows, 50 us of feedback delay makes the queue empty out and the link idle
  // (measured utilisation 0.82, queue 0 to 19 KB around q* = 5.8 KB).
  const auto s = integrate(paper(), link(400, 50), identical(2, 400));
  EXPECT_LT(s.utilisation, 0.9);
  EXPECT_EQ(s.queue_min.si(), 0.0);
}

TEST(DcqcnIntegration, PfcOnlyModeSharesByPausing) {
  // DCQCN off: senders stay at line rate and PFC pauses them all; each delivers C/N and the senders are
  // paused 1 - C/(N r) of the time.
  auto p = paper();
  p.enabled = false;
  Bottleneck b = link(100);
  b.pfc = PauseThresholds{bytes(100e3), bytes(98e3)};
  for (int n : {2, 8}) {
    const auto s =
        integrate(p, b, identical(n, 100), {milliseconds(2), milliseconds(1), nanoseconds(10), {}});
    EXPECT_NEAR(s.delivered[0].si() / gbit_per_s(100.0 / n).si(), 1.0, 0.01) << n;
    EXPECT_NEAR(s.pause_fraction, 1 - 1.0 / n, 0.01) << n;
    EXPECT_GT(s.utilisation, 0.99);
    EXPECT_GE(s.queue_min, bytes(97e3));
  }
  EXPECT_THROW((void)integrate(p, link(100), identical(2, 100)), std::invalid_argument); // no thresholds
  EXPECT_THROW((void)fixed_point(p, gbit_per_s(100), 2), std::invalid_argument);
}

TEST(DcqcnIntegration, AFullPortDrainsItsBytesAtItsRate) {
  // PFC alone keeps the port busy from the first step: 10 MB take 10 MB / C; 10 GB are not served by 2 ms.
  auto p = paper();
  p.enabled = false;
  Bottleneck b = link(100);
  b.pfc = PauseThresholds{bytes(100e3), bytes(98e3)};
  const auto drained = [&](double drain) {
    return integrate(p, b, identical(4, 100),
                     {milliseconds(2), milliseconds(1), nanoseconds(10), bytes(drain)})
        .drained_at.si();
  };
  EXPECT_NEAR(drained(10e6), 10e6 / gbit_per_s(100).si(), 1e-8);
  EXPECT_TRUE(std::isinf(drained(10e9)));
  EXPECT_EQ(drained(0), 0.0) << "none asked for";
  EXPECT_THROW((void)drained(-1), std::invalid_argument);
}
