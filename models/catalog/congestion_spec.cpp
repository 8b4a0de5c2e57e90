#include "models/catalog/congestion_spec.hpp"

#include "models/catalog/entry_reader.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace dpusim::catalog {
namespace {

DcqcnSpec read_dcqcn(EntryReader& r) {
  using units::Bytes;
  using units::DataRate;
  using units::Seconds;
  DcqcnSpec d;
  d.k_min = r.quantity<Bytes>("k_min");
  d.k_max = r.quantity<Bytes>("k_max");
  d.p_max = r.number("p_max", 0, 1);
  d.g = r.number("g", 0, 1);
  d.alpha_interval = r.quantity<Seconds>("alpha_interval");
  d.decrease_interval = r.quantity<Seconds>("decrease_interval");
  d.increase_timer = r.quantity<Seconds>("increase_timer");
  d.byte_counter = r.optional_quantity<Bytes>("byte_counter");
  d.rate_ai = r.quantity<DataRate>("rate_ai");
  d.rate_hai = r.quantity<DataRate>("rate_hai");
  d.fast_recovery_steps = r.count("fast_recovery_steps", 0, 100);
  d.min_rate = r.quantity<DataRate>("min_rate");
  return d;
}

constexpr const char* kDcqcnKeys[] = {
    "k_min",          "k_max",        "p_max",   "g",        "alpha_interval",      "decrease_interval",
    "increase_timer", "byte_counter", "rate_ai", "rate_hai", "fast_recovery_steps", "min_rate"};

} // namespace

CongestionSpec read_congestion(EntryReader& r) {
  CongestionSpec s;
  s.name = r.name();
  s.description = r.description();
  s.rate_control = r.flag("rate_control");
  if (s.rate_control.value) {
    s.dcqcn = read_dcqcn(r);
  } else {
    for (const char* key : kDcqcnKeys)
      if (auto n = r.optional_node(key))
        n->fail("a DCQCN parameter, but rate_control is false (PFC alone)");
  }
  s.reference_rate = r.optional_quantity<units::DataRate>("reference_rate");
  s.mtu = r.quantity<units::Bytes>("mtu");
  s.cable_length_m = r.number("cable_length_m", 0, 10000);
  s.port_buffer = r.quantity<units::Bytes>("port_buffer");
  if (s.dcqcn) {
    const auto line = s.reference_rate ? s.reference_rate->value : units::gbit_per_s(100);
    for (const auto& e : congestion::validate(dcqcn_params(s, line)))
      r.map().required(e.field == "packet" ? "mtu" : e.field).fail(e.message);
  }
  return s;
}

congestion::DcqcnParams dcqcn_params(const CongestionSpec& s, units::DataRate line_rate) {
  congestion::DcqcnParams p;
  p.packet = s.mtu.value;
  if (!s.dcqcn) {
    p.enabled = false;
    return p;
  }
  const auto& d = *s.dcqcn;
  const double scale = s.reference_rate ? line_rate / s.reference_rate->value : 1.0;
  p.k_min = d.k_min.value * scale;
  p.k_max = d.k_max.value * scale;
  p.p_max = d.p_max.value;
  p.g = d.g.value;
  p.alpha_interval = d.alpha_interval.value;
  p.decrease_interval = d.decrease_interval.value;
  p.increase_timer = d.increase_timer.value;
  p.byte_counter = d.byte_counter ? d.byte_counter->value : units::bytes(0);
  p.rate_ai = d.rate_ai.value * scale;
  p.rate_hai = d.rate_hai.value * scale;
  p.fast_recovery_steps = d.fast_recovery_steps.value;
  p.min_rate = d.min_rate.value;
  return p;
}

congestion::IngressPort pfc_ingress_port(const CongestionSpec& s, units::DataRate line_rate) {
  const auto headroom = congestion::headroom_mlx5(line_rate, s.cable_length_m.value, s.mtu.value);
  const auto xoff = s.port_buffer.value - headroom;
  if (xoff <= s.mtu.value)
    throw std::invalid_argument(fmt::format("congestion setting {}: the PFC headroom at {} Gb/s ({} B) "
                                            "leaves no room below its port buffer ({} B)",
                                            s.name, line_rate.si() * 8 / 1e9, headroom.si(),
                                            s.port_buffer.value.si()));
  const auto round_trip = units::nanoseconds(2 * 5.0 * s.cable_length_m.value);
  return congestion::IngressPort{line_rate, congestion::PauseThresholds{xoff, xoff - s.mtu.value}, headroom,
                                 round_trip};
}

} // namespace dpusim::catalog
