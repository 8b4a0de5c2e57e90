// A fluid model of lossless Ethernet at one switch: ingress ports account the bytes they hold, send PAUSE
// above XOFF and resume below XON; what arrives during the pause reaction lands in the headroom; egress
// ports serve their queues max-min fairly. Pure math, no simulator. Equations and closed forms:
// docs/models/congestion.md.
#pragma once

#include "models/base/units.hpp"
#include "models/congestion/param_error.hpp"

#include <vector>

namespace dpusim::congestion {

struct PauseThresholds {
  units::Bytes xoff; // PAUSE is sent when the ingress port holds this much
  units::Bytes xon;  // and lifted when it has drained to this
};

/// One ingress port (one lossless priority of it) and the link from its upstream sender.
struct IngressPort {
  units::DataRate link_rate;
  PauseThresholds pause;
  units::Bytes headroom;        // above XOFF, for what is in flight while the pause takes effect
  units::Seconds reaction_time; // from crossing XOFF (or XON) to the upstream stopping (or resuming)
};

struct EgressPort {
  units::DataRate capacity;
};

struct PfcSwitch {
  std::vector<IngressPort> ingress;
  std::vector<EgressPort> egress;
  units::Bytes buffer; // the packet buffer the ports' thresholds and headrooms are carved from
};

/// A flow through the switch: offered rate at the upstream sender, from an ingress to an egress port.
struct PfcFlow {
  int ingress = 0;
  int egress = 0;
  units::DataRate offered;
};

struct PfcOptions {
  units::Seconds duration = units::milliseconds(2);
  units::Seconds average_from = units::milliseconds(0.5); // averages over [average_from, duration]
  units::Seconds step;                                    // zero: chosen from thresholds and link rates
};

struct PfcResult {
  std::vector<units::DataRate> delivered;   // per flow, out of its egress port
  std::vector<double> pause_fraction;       // per ingress port: share of the window its upstream was paused
  std::vector<double> utilisation;          // per egress port
  std::vector<units::Bytes> peak_occupancy; // per ingress port, over the whole run
  units::Bytes peak_buffer;                 // the whole switch, over the whole run
  units::Bytes headroom_overflow;           // bytes that found the headroom full (a real switch drops them)
};

/// Every refused value, empty when the switch and flows are valid.
ParamErrors validate(const PfcSwitch& sw, const std::vector<PfcFlow>& flows);

/// Fluid time-stepping of the pause/resume cycles. Throws std::invalid_argument when validate() refuses.
PfcResult simulate(const PfcSwitch& sw, const std::vector<PfcFlow>& flows, const PfcOptions& options = {});

/// Headroom by the mlx5 driver's formula: (301 + 2.16 x cable metres) x Gb/s + 2.72 x MTU bytes.
units::Bytes headroom_mlx5(units::DataRate link_rate, double cable_length_m, units::Bytes mtu);
/// What must fit at least: the round trip of the cable and the peer's response time at the link rate,
/// plus one MTU the sender had started and one the switch had started when XOFF was crossed.
units::Bytes headroom_lower_bound(units::DataRate link_rate, units::Seconds cable_delay, units::Bytes mtu,
                                  units::Seconds response_time);

/// Closed forms of the steady state (derived in docs/models/congestion.md).
/// N senders at `line_rate` into one egress of `capacity`: the share of time each ingress port is paused.
double incast_pause_fraction(units::DataRate capacity, int senders, units::DataRate line_rate);
/// A victim flow offered `victim` on the ingress port of one of the N incast senders (which offers the
/// line rate), bound for an idle egress: the rate it gets.
units::DataRate victim_rate(units::DataRate capacity, int senders, units::DataRate line_rate,
                            units::DataRate victim);

} // namespace dpusim::congestion
