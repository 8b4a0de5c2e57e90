#pragma once

#include "models/base/units.hpp"
#include "models/catalog/cited.hpp"
#include "models/congestion/dcqcn.hpp"
#include "models/congestion/pfc.hpp"

#include <optional>
#include <string>

namespace dpusim::catalog {

class EntryReader;

/// DCQCN's parameters as a catalog entry gives them (docs/models/congestion.md, "Parameters").
struct DcqcnSpec {
  Cited<units::Bytes> k_min;
  Cited<units::Bytes> k_max;
  Cited<double> p_max;
  Cited<double> g;
  Cited<units::Seconds> alpha_interval;
  Cited<units::Seconds> decrease_interval;
  Cited<units::Seconds> increase_timer;
  std::optional<Cited<units::Bytes>> byte_counter; // absent: no byte counter, the timer alone
  Cited<units::DataRate> rate_ai;
  Cited<units::DataRate> rate_hai;
  Cited<int> fast_recovery_steps;
  Cited<units::DataRate> min_rate;
};

/// A congestion-control setting of a RoCE fabric: DCQCN's parameters, or none (PFC alone), and the PFC
/// buffer accounting of a switch ingress port.
struct CongestionSpec {
  std::string name;
  std::string description;
  Cited<bool> rate_control;       // DCQCN on; off: PFC alone
  std::optional<DcqcnSpec> dcqcn; // present exactly when rate_control
  /// Set when the thresholds (k_min, k_max) and increases (rate_ai, rate_hai) are given for this line
  /// rate and scale linearly with it, as the HPCC simulator scales them; absent: used as they are.
  std::optional<Cited<units::DataRate>> reference_rate;
  Cited<units::Bytes> mtu;         // the packet of the fluid models, and the PFC headroom's MTU term
  Cited<double> cable_length_m;    // for the PFC headroom
  Cited<units::Bytes> port_buffer; // an ingress port's lossless buffer: XOFF = port_buffer - headroom
};

CongestionSpec read_congestion(EntryReader& r);

/// The DCQCN parameters on links of `line_rate` (scaled when the entry has a reference rate).
congestion::DcqcnParams dcqcn_params(const CongestionSpec& s, units::DataRate line_rate);
/// An ingress port of `line_rate` by the entry: headroom by the mlx5 formula, XOFF = port_buffer -
/// headroom, XON one MTU below, reaction time the cable's round trip at 5 ns/m. Throws
/// std::invalid_argument when the headroom leaves no room for XOFF.
congestion::IngressPort pfc_ingress_port(const CongestionSpec& s, units::DataRate line_rate);

} // namespace dpusim::catalog
