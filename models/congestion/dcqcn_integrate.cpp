// Explicit-Euler integration of the DCQCN delay-differential equations at one bottleneck.
#include "models/congestion/dcqcn.hpp"
#include "models/congestion/dcqcn_terms.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

namespace dpusim::congestion {
namespace {

void check_inputs(const DcqcnParams& p, const Bottleneck& b, const std::vector<FlowGroup>& flows,
                  const IntegrationOptions& o) {
  if (auto errors = validate(p); !errors.empty())
    throw std::invalid_argument(fmt::format("DCQCN parameter {}: {}", errors[0].field, errors[0].message));
  if (!(b.capacity.si() > 0) || b.feedback_delay.si() < 0)
    throw std::invalid_argument(
        "the bottleneck needs a positive capacity and a feedback delay of zero or more");
  if (b.pfc && !(b.pfc->xon < b.pfc->xoff && b.pfc->xon.si() >= 0))
    throw std::invalid_argument("the bottleneck's PFC thresholds need 0 <= XON < XOFF");
  if (!p.enabled && !b.pfc)
    throw std::invalid_argument(
        "without DCQCN, only PFC limits the senders: the bottleneck needs thresholds");
  if (flows.empty())
    throw std::invalid_argument("no flows cross the bottleneck");
  for (const auto& f : flows)
    if (f.count < 1 || !(f.line_rate.si() > 0) || f.initial_rate.si() < 0 || f.initial_rate > f.line_rate)
      throw std::invalid_argument("each flow group needs a count of 1 or more, a positive line rate and an "
                                  "initial rate up to it");
  if (!(o.duration > o.average_from) || o.average_from.si() < 0 || o.step.si() < 0)
    throw std::invalid_argument(
        "the integration needs 0 <= average_from < duration and a step of zero or more");
  if (!(o.drain.si() >= 0) || !std::isfinite(o.drain.si()))
    throw std::invalid_argument("the bytes to drain must be zero or more");
}

double default_step(const DcqcnParams& p, const Bottleneck& b) {
  double shortest = 1e-3;
  if (p.enabled)
    shortest = std::min({p.decrease_interval.si(), p.alpha_interval.si(), p.increase_timer.si()});
  if (b.feedback_delay.si() > 0)
    shortest = std::min(shortest, b.feedback_delay.si());
  return shortest / 20;
}

struct GroupState {
  double rc = 0; // packets/s
  double rt = 0;
  double alpha = 1;
};

/// A fixed-length history: value(k - delay) for the delayed terms, the initial value before t = 0.
class Delayed {
public:
  Delayed(std::size_t delay, double initial) : buffer_(delay + 1, initial) {}
  void push(double v) {
    buffer_[head_] = v;
    head_ = (head_ + 1) % buffer_.size();
  }
  /// The value pushed `delay` pushes ago (after push(), head_ points at the oldest entry).
  [[nodiscard]] double oldest() const { return buffer_[head_]; }

private:
  std::vector<double> buffer_;
  std::size_t head_ = 0;
};

} // namespace

SteadyState integrate(const DcqcnParams& p, const Bottleneck& b, const std::vector<FlowGroup>& flows,
                      const IntegrationOptions& o) {
  check_inputs(p, b, flows, o);
  const double pkt = p.packet.si() > 0 ? p.packet.si() : 1000.0;
  const auto k = detail::in_packets(p);
  const double h = o.step.si() > 0 ? o.step.si() : default_step(p, b);
  const auto delay = static_cast<std::size_t>(std::llround(b.feedback_delay.si() / h));
  const auto steps = static_cast<std::size_t>(std::ceil(o.duration.si() / h));
  const auto first_averaged = static_cast<std::size_t>(std::floor(o.average_from.si() / h));
  const double capacity = b.capacity.si() / pkt;

  std::vector<GroupState> state;
  std::vector<Delayed> rc_history;
  for (const auto& f : flows) {
    const double r0 = f.initial_rate.si() / pkt;
    state.push_back({r0, r0, 1.0});
    rc_history.emplace_back(delay, r0);
  }
  Delayed q_history(delay, 0.0);
  double q = 0; // bytes
  bool paused = false;

  SteadyState out;
  std::vector<double> rate_sum(flows.size(), 0.0);
  std::vector<double> delivered_sum(flows.size(), 0.0);
  double q_sum = 0, p_sum = 0, served_sum = 0, paused_steps = 0;
  double q_min = std::numeric_limits<double>::infinity(), q_max = 0;
  const double drain = o.drain.si();
  double served_total = 0;
  double drained_at = drain > 0 ? std::numeric_limits<double>::infinity() : 0.0;

  for (std::size_t step = 0; step < steps; ++step) {
    const bool sending = !paused;
    const double marking = marking_probability(p, units::bytes(q_history.oldest()));
    double arrivals = 0; // packets/s into the queue
    for (std::size_t i = 0; i < flows.size(); ++i) {
      auto& s = state[i];
      const double line = flows[i].line_rate.si() / pkt;
      if (p.enabled) {
        const auto t = detail::terms(k, marking, rc_history[i].oldest());
        const double drc =
            -s.rc * s.alpha * t.cut / (2 * k.tau) + 0.5 * (s.rt - s.rc) * (t.byte_events + t.timer_events);
        const double drt = -(s.rt - s.rc) * t.cut / k.tau + k.rate_ai * (t.byte_ai + t.timer_ai);
        const double dalpha = k.g / k.tau_alpha * (t.alpha_target - s.alpha);
        s.rc = std::clamp(s.rc + h * drc, std::min(k.min_rate, line), line);
        s.rt = std::clamp(s.rt + h * drt, std::min(k.min_rate, line), line);
        s.alpha = std::clamp(s.alpha + h * dalpha, 0.0, 1.0);
      } else {
        s.rc = line; // no rate control: every sender at line rate unless paused
      }
      rc_history[i].push(s.rc);
      if (sending)
        arrivals += flows[i].count * s.rc;
    }
    const double in = arrivals * pkt * h;
    const double served = std::min(b.capacity.si() * h, q + in);
    q = std::max(0.0, q + in - served);
    if (drain > 0 && served_total < drain && served_total + served >= drain)
      drained_at = h * (static_cast<double>(step) + (drain - served_total) / std::max(served, 1e-300));
    served_total += served;
    if (b.pfc) {
      if (!paused && q >= b.pfc->xoff.si())
        paused = true;
      else if (paused && q <= b.pfc->xon.si())
        paused = false;
    }
    q_history.push(q);
    if (step >= first_averaged) {
      for (std::size_t i = 0; i < flows.size(); ++i) {
        rate_sum[i] += state[i].rc;
        delivered_sum[i] += sending ? state[i].rc : 0.0;
      }
      q_sum += q;
      p_sum += marking;
      served_sum += served;
      paused_steps += sending ? 0 : 1;
      q_min = std::min(q_min, q);
      q_max = std::max(q_max, q);
    }
  }
  const double n = static_cast<double>(steps - std::min(first_averaged, steps));
  for (std::size_t i = 0; i < flows.size(); ++i) {
    out.rate.push_back(units::DataRate::from_si(rate_sum[i] / n * pkt));
    out.delivered.push_back(units::DataRate::from_si(delivered_sum[i] / n * pkt));
  }
  out.queue = units::bytes(q_sum / n);
  out.queue_min = units::bytes(q_min);
  out.queue_max = units::bytes(q_max);
  out.marking = p_sum / n;
  out.utilisation = served_sum / (n * h * capacity * pkt);
  out.pause_fraction = paused_steps / n;
  out.drained_at = units::Seconds::from_si(drained_at);
  return out;
}

} // namespace dpusim::congestion
