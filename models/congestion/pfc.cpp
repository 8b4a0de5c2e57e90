#include "models/congestion/pfc.hpp"

#include "models/congestion/max_min.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <deque>
#include <fmt/format.h>
#include <stdexcept>

namespace dpusim::congestion {
namespace {

bool non_negative(double v) {
  return v >= 0 && std::isfinite(v);
}

void check_port(ParamErrors& out, const IngressPort& p, std::size_t i, units::Bytes buffer) {
  const auto field = [i](const char* name) { return fmt::format("ingress[{}].{}", i, name); };
  if (!(p.link_rate.si() > 0) || !std::isfinite(p.link_rate.si()))
    out.push_back({field("link_rate"), "must be greater than zero"});
  if (!(p.pause.xoff.si() > 0) || !std::isfinite(p.pause.xoff.si()))
    out.push_back({field("xoff"), fmt::format("must be greater than zero, found {} B", p.pause.xoff.si())});
  if (!non_negative(p.pause.xon.si()))
    out.push_back({field("xon"), fmt::format("must be zero or more, found {} B", p.pause.xon.si())});
  else if (p.pause.xon >= p.pause.xoff)
    out.push_back(
        {field("xon"), fmt::format("must be below XOFF ({} B >= {} B): the port would resume before "
                                   "it has drained",
                                   p.pause.xon.si(), p.pause.xoff.si())});
  if (!non_negative(p.headroom.si()))
    out.push_back({field("headroom"), fmt::format("must be zero or more, found {} B", p.headroom.si())});
  else if (p.headroom > buffer)
    out.push_back({field("headroom"),
                   fmt::format("is larger than the buffer ({} B > {} B)", p.headroom.si(), buffer.si())});
  else if (p.pause.xoff + p.headroom > buffer)
    out.push_back({field("xoff"), fmt::format("XOFF plus headroom exceeds the buffer ({} B + {} B > {} B)",
                                              p.pause.xoff.si(), p.headroom.si(), buffer.si())});
  if (!non_negative(p.reaction_time.si()))
    out.push_back({field("reaction_time"), "must be zero or more"});
}

double default_step(const PfcSwitch& sw) {
  double step = 1e-6;
  for (const auto& p : sw.ingress) {
    step = std::min(step, (p.pause.xoff - p.pause.xon).si() / p.link_rate.si() / 10);
    if (p.reaction_time.si() > 0)
      step = std::min(step, p.reaction_time.si() / 10);
  }
  return step;
}

} // namespace

ParamErrors validate(const PfcSwitch& sw, const std::vector<PfcFlow>& flows) {
  ParamErrors out;
  if (!(sw.buffer.si() > 0) || !std::isfinite(sw.buffer.si()))
    out.push_back({"buffer", fmt::format("must be greater than zero, found {} B", sw.buffer.si())});
  for (std::size_t i = 0; i < sw.ingress.size(); ++i)
    check_port(out, sw.ingress[i], i, sw.buffer);
  for (std::size_t e = 0; e < sw.egress.size(); ++e)
    if (!(sw.egress[e].capacity.si() > 0) || !std::isfinite(sw.egress[e].capacity.si()))
      out.push_back({fmt::format("egress[{}].capacity", e), "must be greater than zero"});
  const auto n_in = static_cast<int>(sw.ingress.size());
  const auto n_out = static_cast<int>(sw.egress.size());
  for (std::size_t f = 0; f < flows.size(); ++f) {
    if (flows[f].ingress < 0 || flows[f].ingress >= n_in)
      out.push_back(
          {fmt::format("flows[{}].ingress", f), fmt::format("must be a port from 0 to {}", n_in - 1)});
    if (flows[f].egress < 0 || flows[f].egress >= n_out)
      out.push_back(
          {fmt::format("flows[{}].egress", f), fmt::format("must be a port from 0 to {}", n_out - 1)});
    if (!non_negative(flows[f].offered.si()))
      out.push_back({fmt::format("flows[{}].offered", f), "must be zero or more"});
  }
  return out;
}

PfcResult simulate(const PfcSwitch& sw, const std::vector<PfcFlow>& flows, const PfcOptions& o) {
  if (auto errors = validate(sw, flows); !errors.empty())
    throw std::invalid_argument(fmt::format("PFC {}: {}", errors[0].field, errors[0].message));
  if (!(o.duration > o.average_from) || o.average_from.si() < 0 || o.step.si() < 0)
    throw std::invalid_argument("the run needs 0 <= average_from < duration and a step of zero or more");
  const double h = o.step.si() > 0 ? o.step.si() : default_step(sw);
  const auto steps = static_cast<std::size_t>(std::ceil(o.duration.si() / h));
  const auto first_averaged = static_cast<std::size_t>(std::floor(o.average_from.si() / h));
  const std::size_t n_in = sw.ingress.size();
  const std::size_t n_out = sw.egress.size();

  std::vector<std::vector<std::size_t>> at_ingress(n_in), at_egress(n_out);
  for (std::size_t f = 0; f < flows.size(); ++f) {
    at_ingress[static_cast<std::size_t>(flows[f].ingress)].push_back(f);
    at_egress[static_cast<std::size_t>(flows[f].egress)].push_back(f);
  }
  // What the upstream sender sees: the switch's pause state one reaction time ago.
  std::vector<std::deque<bool>> seen(n_in);
  for (std::size_t i = 0; i < n_in; ++i)
    seen[i].assign(static_cast<std::size_t>(std::llround(sw.ingress[i].reaction_time.si() / h)) + 1, false);

  std::vector<double> queue(flows.size(), 0.0); // bytes of each flow held by the switch
  std::vector<bool> paused(n_in, false);
  PfcResult r;
  r.delivered.assign(flows.size(), units::DataRate{});
  r.pause_fraction.assign(n_in, 0.0);
  r.utilisation.assign(n_out, 0.0);
  r.peak_occupancy.assign(n_in, units::Bytes{});
  std::vector<double> delivered(flows.size(), 0.0), served_out(n_out, 0.0), paused_steps(n_in, 0.0);
  double overflow = 0, peak_total = 0;
  std::vector<double> offered, share, demand;

  for (std::size_t step = 0; step < steps; ++step) {
    const bool averaging = step >= first_averaged;
    for (std::size_t i = 0; i < n_in; ++i) {
      seen[i].push_back(paused[i]);
      const bool stopped = seen[i].front();
      seen[i].pop_front();
      if (averaging && stopped)
        paused_steps[i] += 1;
      if (stopped)
        continue;
      offered.clear();
      for (auto f : at_ingress[i])
        offered.push_back(flows[f].offered.si());
      max_min_share(sw.ingress[i].link_rate.si(), offered, share);
      double held = 0;
      for (auto f : at_ingress[i])
        held += queue[f];
      const double room = (sw.ingress[i].pause.xoff + sw.ingress[i].headroom).si() - held;
      double arriving = 0;
      for (double s : share)
        arriving += s * h;
      const double admitted = arriving > room ? std::max(room, 0.0) / arriving : 1.0;
      overflow += arriving * (1 - admitted);
      for (std::size_t j = 0; j < at_ingress[i].size(); ++j)
        queue[at_ingress[i][j]] += share[j] * h * admitted;
    }
    for (std::size_t e = 0; e < n_out; ++e) {
      demand.clear();
      for (auto f : at_egress[e])
        demand.push_back(queue[f] / h);
      max_min_share(sw.egress[e].capacity.si(), demand, share);
      for (std::size_t j = 0; j < at_egress[e].size(); ++j) {
        const auto f = at_egress[e][j];
        const double out = std::min(queue[f], share[j] * h);
        queue[f] -= out;
        if (averaging) {
          delivered[f] += out;
          served_out[e] += out;
        }
      }
    }
    double total = 0;
    for (std::size_t i = 0; i < n_in; ++i) {
      double held = 0;
      for (auto f : at_ingress[i])
        held += queue[f];
      total += held;
      r.peak_occupancy[i] = std::max(r.peak_occupancy[i], units::bytes(held));
      if (!paused[i] && held >= sw.ingress[i].pause.xoff.si())
        paused[i] = true;
      else if (paused[i] && held <= sw.ingress[i].pause.xon.si())
        paused[i] = false;
    }
    peak_total = std::max(peak_total, total);
  }
  const double window = h * static_cast<double>(steps - std::min(first_averaged, steps));
  for (std::size_t f = 0; f < flows.size(); ++f)
    r.delivered[f] = units::DataRate::from_si(delivered[f] / window);
  for (std::size_t i = 0; i < n_in; ++i)
    r.pause_fraction[i] = paused_steps[i] * h / window;
  for (std::size_t e = 0; e < n_out; ++e)
    r.utilisation[e] = served_out[e] / (window * sw.egress[e].capacity.si());
  r.peak_buffer = units::bytes(peak_total);
  r.headroom_overflow = units::bytes(overflow);
  return r;
}

units::Bytes headroom_mlx5(units::DataRate link_rate, double cable_length_m, units::Bytes mtu) {
  const double gbps = link_rate.si() * 8 / 1e9;
  return units::bytes((301 + 2.16 * cable_length_m) * gbps + 2.72 * mtu.si());
}

units::Bytes headroom_lower_bound(units::DataRate link_rate, units::Seconds cable_delay, units::Bytes mtu,
                                  units::Seconds response_time) {
  return link_rate * (2 * cable_delay + response_time) + 2 * mtu;
}

double incast_pause_fraction(units::DataRate capacity, int senders, units::DataRate line_rate) {
  return std::max(0.0, 1.0 - capacity / (line_rate * senders));
}

units::DataRate victim_rate(units::DataRate capacity, int senders, units::DataRate line_rate,
                            units::DataRate victim) {
  // The sender's link, shared max-min while it may send: the victim gets min(v, r/2), the incast flow the
  // rest.
  const auto victim_on = std::min(victim, line_rate / 2);
  const auto incast_on = line_rate - victim_on;
  // The incast flow drains at its egress share C/N: the port is open a fraction C / (N x incast_on).
  const double open = std::min(1.0, capacity / (incast_on * senders));
  return victim_on * open;
}

} // namespace dpusim::congestion
