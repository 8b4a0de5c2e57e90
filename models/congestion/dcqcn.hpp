// The fluid model of DCQCN (Zhu, Ghobadi, Misra, Padhye, "ECN or Delay", CoNEXT 2016, section 3): per-flow
// current rate R_C, target rate R_T and alpha, one bottleneck queue q marked RED-like, feedback delayed by
// tau*. Pure math, no simulator: a caller drives it per bottleneck with the flows crossing it. Equations,
// parameters and limits: docs/models/congestion.md.
#pragma once

#include "models/base/units.hpp"
#include "models/congestion/param_error.hpp"
#include "models/congestion/pfc.hpp"

#include <optional>
#include <vector>

namespace dpusim::congestion {

struct DcqcnParams {
  bool enabled = true;              // false: no end-to-end rate control, PFC alone (PFC-only fabrics)
  units::Bytes k_min;               // ECN marking starts above this queue
  units::Bytes k_max;               // marking probability reaches p_max here, and is 1 above
  double p_max = 0.01;              // in (0, 1]
  double g = 1.0 / 256;             // alpha EWMA gain, in (0, 1]
  units::Seconds alpha_interval;    // tau': alpha is updated once per interval
  units::Seconds decrease_interval; // tau: at most one rate cut (one CNP) per interval
  units::Seconds increase_timer;    // T: a rate-increase event per timer period
  units::Bytes byte_counter;        // B: a rate-increase event per B bytes sent; zero: no byte counter
  units::DataRate rate_ai;          // R_AI: additive increase of the target rate per event
  units::DataRate rate_hai;         // R_HAI: hyper increase; not in the fluid model (kept for the record)
  int fast_recovery_steps = 5;      // F: increase events that only move R_C halfway to R_T
  units::DataRate min_rate;         // the rate is never cut below this
  units::Bytes packet;              // marking is per packet: the fluid model counts in packets of this size
};

/// Every refused value of `p`, empty when it is valid.
ParamErrors validate(const DcqcnParams& p);

/// RED-like marking: 0 up to k_min, rising linearly to p_max at k_max, 1 above.
double marking_probability(const DcqcnParams& p, units::Bytes queue);
/// The queue at which the ramp marks with probability `marking` (0 <= marking <= p_max).
units::Bytes queue_for_marking(const DcqcnParams& p, double marking);

/// The equilibrium of N identical flows on one bottleneck of capacity C.
struct FixedPoint {
  units::DataRate rate;        // R_C* = C / N
  units::DataRate target_rate; // R_T*
  double alpha = 0;
  double marking = 0;  // p*
  units::Bytes queue;  // q*, the inverse of the marking ramp at p*
  bool on_ramp = true; // p* <= p_max, so k_min <= q* <= k_max; otherwise q* is k_max and beyond
};

/// Solves the fluid model's fixed-point equations for p* (bracketing solver); `p` must be valid and enabled.
FixedPoint fixed_point(const DcqcnParams& p, units::DataRate capacity, int flows);
/// The small-marking limit of the fixed point, p* ~ (R_AI / (tau' R^2) (1/B + 1/(T R))^2)^(1/3); a check.
double approximate_marking(const DcqcnParams& p, units::DataRate per_flow_rate);

/// The bottleneck a set of flows shares: its egress capacity, the feedback delay from its queue to the
/// senders' reaction (tau*), and optionally the PFC thresholds of the queue.
struct Bottleneck {
  units::DataRate capacity;
  units::Seconds feedback_delay;
  std::optional<PauseThresholds> pfc; // when set, every sender stops while the queue is paused
};

/// `count` identical flows: same line rate, same start; they stay identical.
struct FlowGroup {
  int count = 1;
  units::DataRate line_rate;
  units::DataRate initial_rate; // R_C = R_T at t <= 0
};

struct IntegrationOptions {
  units::Seconds duration = units::milliseconds(200);
  units::Seconds average_from = units::milliseconds(100); // time averages over [average_from, duration]
  units::Seconds step;                                    // zero: a twentieth of the shortest time constant
  /// When set: the run also records when the port had served this many bytes since t = 0 (a transfer's
  /// completion, SteadyState::drained_at).
  units::Bytes drain;
};

/// Time averages over the averaging window.
struct SteadyState {
  std::vector<units::DataRate> rate;      // per flow of each group (R_C, as sent while not paused)
  std::vector<units::DataRate> delivered; // per flow of each group, into the queue, pauses included
  units::Bytes queue;
  units::Bytes queue_min;
  units::Bytes queue_max;
  double marking = 0;
  double utilisation = 0;    // bytes served / (capacity x window)
  double pause_fraction = 0; // share of the window the senders were paused by PFC
  /// When the port had served IntegrationOptions::drain bytes; infinite when it had not by `duration`,
  /// zero when no drain was asked for.
  units::Seconds drained_at;
};

/// Integrates the delay-differential equations by explicit Euler with a fixed step, the delayed terms
/// read from a history buffer. Throws std::invalid_argument on invalid parameters or inputs.
SteadyState integrate(const DcqcnParams& p, const Bottleneck& b, const std::vector<FlowGroup>& flows,
                      const IntegrationOptions& options = {});

} // namespace dpusim::congestion
