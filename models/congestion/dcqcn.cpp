#include "models/congestion/dcqcn.hpp"

#include "models/congestion/dcqcn_terms.hpp"

#include <algorithm>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

namespace dpusim::congestion {
namespace {

void positive(ParamErrors& out, const char* field, double v, const char* what) {
  if (!(v > 0) || !std::isfinite(v))
    out.push_back({field, fmt::format("{} must be greater than zero, found {}", what, v)});
}

void probability(ParamErrors& out, const char* field, double v) {
  if (!(v > 0 && v <= 1))
    out.push_back({field, fmt::format("must be in (0, 1], found {}", v)});
}

constexpr double kInf = std::numeric_limits<double>::infinity();

/// log(e^x - 1) for x > 0, without overflow for large x.
double log_expm1(double x) {
  return x > 30 ? x + std::log1p(-std::exp(-x)) : std::log(std::expm1(x));
}

double log_add(double a, double b) {
  const double hi = std::max(a, b);
  if (hi == -kInf)
    return hi;
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

/// log of the fixed point's residual ratio: alpha a^2 / (tau^2 (b + d)) over R_AI R (c + e), both the
/// equilibrium balance of rate cuts against increases (docs/models/congestion.md, "Fixed point").
double log_balance(const detail::PacketParams& k, double p, double r) {
  const double l = std::log1p(-p); // log(1 - p) < 0
  const double log_a = std::log(-std::expm1(k.tau * r * l));
  const double log_alpha = std::log(-std::expm1(k.tau_alpha * r * l));
  const double log_b = k.bytes > 0 ? std::log(p) - log_expm1(-k.bytes * l) : -kInf; // no byte counter
  const double log_d = std::log(p) - log_expm1(-k.timer * r * l);
  const double log_c = log_b + k.steps * k.bytes * l;
  const double log_e = log_d + k.steps * k.timer * r * l;
  const double cuts = log_alpha + 2 * log_a - 2 * std::log(k.tau) - log_add(log_b, log_d);
  const double increases = std::log(k.rate_ai * r) + log_add(log_c, log_e);
  return cuts - increases;
}

} // namespace

ParamErrors validate(const DcqcnParams& p) {
  ParamErrors out;
  if (!p.enabled)
    return out; // no rate control: none of its parameters is used
  if (p.k_min.si() < 0 || !std::isfinite(p.k_min.si()))
    out.push_back({"k_min", fmt::format("must be zero or more, found {} B", p.k_min.si())});
  positive(out, "k_max", p.k_max.si(), "the marking threshold");
  if (p.k_min > p.k_max)
    out.push_back({"k_min", fmt::format("must not exceed k_max ({} B > {} B)", p.k_min.si(), p.k_max.si())});
  probability(out, "p_max", p.p_max);
  probability(out, "g", p.g);
  positive(out, "alpha_interval", p.alpha_interval.si(), "the interval");
  positive(out, "decrease_interval", p.decrease_interval.si(), "the interval");
  positive(out, "increase_timer", p.increase_timer.si(), "the timer");
  if (p.byte_counter.si() < 0 || !std::isfinite(p.byte_counter.si()))
    out.push_back({"byte_counter",
                   fmt::format("must be zero (no byte counter) or more, found {} B", p.byte_counter.si())});
  positive(out, "rate_ai", p.rate_ai.si(), "the additive increase");
  if (p.rate_hai.si() < 0 || !std::isfinite(p.rate_hai.si()))
    out.push_back({"rate_hai", fmt::format("must be zero or more, found {} B/s", p.rate_hai.si())});
  if (p.fast_recovery_steps < 0)
    out.push_back(
        {"fast_recovery_steps", fmt::format("must be zero or more, found {}", p.fast_recovery_steps)});
  positive(out, "min_rate", p.min_rate.si(), "the minimum rate");
  positive(out, "packet", p.packet.si(), "the packet size");
  return out;
}

double marking_probability(const DcqcnParams& p, units::Bytes queue) {
  if (queue <= p.k_min)
    return 0.0;
  if (queue > p.k_max)
    return 1.0;
  return p.p_max * ((queue - p.k_min) / (p.k_max - p.k_min));
}

units::Bytes queue_for_marking(const DcqcnParams& p, double marking) {
  return p.k_min + (p.k_max - p.k_min) * (std::clamp(marking, 0.0, p.p_max) / p.p_max);
}

namespace detail {

PacketParams in_packets(const DcqcnParams& p) {
  const double pkt = p.packet.si();
  return PacketParams{p.decrease_interval.si(),
                      p.alpha_interval.si(),
                      p.increase_timer.si(),
                      p.byte_counter.si() / pkt,
                      p.rate_ai.si() / pkt,
                      static_cast<double>(p.fast_recovery_steps),
                      p.g,
                      p.min_rate.si() / pkt};
}

Terms terms(const PacketParams& k, double p, double r) {
  Terms t;
  if (p <= 0) { // the limits of the expressions below as p -> 0
    t.byte_events = k.bytes > 0 ? r / k.bytes : 0.0;
    t.timer_events = 1.0 / k.timer;
    t.byte_ai = t.byte_events;
    t.timer_ai = t.timer_events;
    return t;
  }
  if (p >= 1) { // every packet marked: a cut per interval, no increase event completes
    t.cut = 1;
    t.alpha_target = 1;
    return t;
  }
  const double l = std::log1p(-p);
  t.cut = -std::expm1(k.tau * r * l);
  t.alpha_target = -std::expm1(k.tau_alpha * r * l);
  t.byte_events = k.bytes > 0 ? r * p / std::expm1(-k.bytes * l) : 0.0;
  t.timer_events = r * p / std::expm1(-k.timer * r * l);
  t.byte_ai = t.byte_events * std::exp(k.steps * k.bytes * l);
  t.timer_ai = t.timer_events * std::exp(k.steps * k.timer * r * l);
  return t;
}

} // namespace detail

double approximate_marking(const DcqcnParams& p, units::DataRate per_flow_rate) {
  const auto k = detail::in_packets(p);
  const double r = per_flow_rate.si() / p.packet.si();
  const double events = (k.bytes > 0 ? 1.0 / k.bytes : 0.0) + 1.0 / (k.timer * r);
  return std::cbrt(k.rate_ai / (k.tau_alpha * r * r) * events * events);
}

FixedPoint fixed_point(const DcqcnParams& p, units::DataRate capacity, int flows) {
  if (auto errors = validate(p); !errors.empty())
    throw std::invalid_argument(fmt::format("DCQCN parameter {}: {}", errors[0].field, errors[0].message));
  if (!p.enabled)
    throw std::invalid_argument("DCQCN is disabled: there is no rate-control fixed point");
  if (flows < 1 || !(capacity.si() > 0))
    throw std::invalid_argument("a fixed point needs one flow or more on a bottleneck of positive capacity");
  const auto k = detail::in_packets(p);
  const double r = capacity.si() / p.packet.si() / flows;
  // The balance rises from -inf (no marks: no cuts) to +inf (all marked: no increases); bracket it.
  const double lo = 1e-15;
  const double hi = 1 - 1e-12;
  auto f = [&](double x) { return log_balance(k, x, r); };
  if (!(f(lo) < 0 && f(hi) > 0))
    throw std::invalid_argument("the DCQCN fixed point is not bracketed in (0, 1) for these parameters");
  std::uintmax_t iterations = 200;
  const auto [a, b] =
      boost::math::tools::toms748_solve(f, lo, hi, boost::math::tools::eps_tolerance<double>(48), iterations);
  const double marking = 0.5 * (a + b);
  const auto t = detail::terms(k, marking, r);
  FixedPoint fp;
  fp.rate = capacity / flows;
  fp.alpha = t.alpha_target;
  fp.marking = marking;
  // From dR_C/dt = 0: R_T - R_C = alpha a / (tau (b + d)), with b + d the increase events per packet.
  const double gap = t.alpha_target * t.cut * r / (k.tau * (t.byte_events + t.timer_events));
  fp.target_rate = units::DataRate::from_si((r + gap) * p.packet.si());
  fp.on_ramp = marking <= p.p_max;
  fp.queue = queue_for_marking(p, marking);
  return fp;
}

} // namespace dpusim::congestion
