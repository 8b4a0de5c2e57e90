#pragma once

#include "models/base/units.hpp"
#include "models/catalog/cited.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace dpusim::catalog {

class EntryReader;

/// NCCL's protocols: Simple (large messages), LL and LL128 (low-latency: flags travel with the data).
enum class NcclProtocol { simple, ll, ll128 };
inline constexpr NcclProtocol kNcclProtocols[] = {NcclProtocol::simple, NcclProtocol::ll,
                                                  NcclProtocol::ll128};
/// "Simple", "LL", "LL128" (NCCL_PROTO's names).
std::string_view protocol_name(NcclProtocol p);

/// What one protocol costs a ring or tree step: the library's latency per step and per collective, and the
/// share of a link's bandwidth its payload gets.
struct ProtocolCosts {
  Cited<units::Seconds> step_latency_nvlink;
  Cited<units::Seconds> step_latency_pcie;
  Cited<units::Seconds> step_latency_network;
  Cited<units::Seconds> base_latency;
  Cited<double> bandwidth_share; // 1 for Simple
  /// A tree's network step, and a ring's where it has one rank a node (NCCL's model exposes every
  /// latency there); the ring's where the entry gives none.
  Cited<units::Seconds> tree_step_latency_network;
};

/// A collective communication library's latency model and transport defaults (NCCL).
struct CollectiveSpec {
  std::string name;
  std::string description;
  Cited<units::Seconds> step_latency_nvlink; // per ring step, beyond the simulated wire latency
  Cited<units::Seconds> step_latency_pcie;
  Cited<units::Seconds> step_latency_network;
  Cited<units::Seconds> tree_step_latency_network; // a tree's, and a ring's of one rank a node
  Cited<units::Seconds> base_latency;              // once per collective
  Cited<int> socket_threads;                       // CPU threads driving one TCP connection
  Cited<int> channels_per_nic;   // rings (channels) a NIC carries, each on a connection of its own
  Cited<int> qps_per_connection; // RDMA queue pairs a connection's bytes are split over
  Cited<bool> pxn;               // sends reach a NIC on another GPU's rail over NVLink first
  // The low-latency protocols, where the entry gives them (ll_*, ll128_* keys).
  std::optional<ProtocolCosts> ll, ll128;

  /// The protocol's costs (Simple's from the fields above); nullptr where the entry lacks the protocol.
  [[nodiscard]] std::optional<ProtocolCosts> protocol(NcclProtocol p) const;
};

CollectiveSpec read_collective(EntryReader& r);

} // namespace dpusim::catalog
