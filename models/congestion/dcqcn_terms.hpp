// The event-rate terms of the DCQCN fluid model (ECN or Delay, CoNEXT 2016, section 3), shared by the
// fixed point and the integration. Everything in packets and seconds.
#pragma once

#include "models/congestion/dcqcn.hpp"

namespace dpusim::congestion::detail {

/// The parameters in the fluid model's units: packets, packets per second, seconds.
struct PacketParams {
  double tau = 0;       // rate-decrease interval
  double tau_alpha = 0; // alpha-update interval
  double timer = 0;     // T
  double bytes = 0;     // B, in packets
  double rate_ai = 0;   // packets/s
  double steps = 0;     // F
  double g = 0;
  double min_rate = 0; // packets/s
};

PacketParams in_packets(const DcqcnParams& p);

/// With marking probability p seen by a flow that sent at rate r (packets/s) one feedback delay ago:
struct Terms {
  double cut = 0;          // a: probability of at least one mark in a rate-decrease interval
  double alpha_target = 0; // probability of at least one mark in an alpha interval
  double byte_events = 0;  // r b: byte-counter increase events per second
  double timer_events = 0; // r d: timer increase events per second
  double byte_ai = 0;      // r c: byte-counter events past fast recovery, per second
  double timer_ai = 0;     // r e: timer events past fast recovery, per second
};

Terms terms(const PacketParams& k, double p, double r);

} // namespace dpusim::congestion::detail
