#pragma once

#include "models/catalog/cited.hpp"
#include "models/core/units.hpp"

#include <string>

namespace dpusim::catalog {

class EntryReader;

/// A collective communication library's latency model and transport defaults (NCCL).
struct CollectiveSpec {
  std::string name;
  std::string description;
  Cited<units::Seconds> step_latency_nvlink; // per ring step, beyond the simulated wire latency
  Cited<units::Seconds> step_latency_pcie;
  Cited<units::Seconds> step_latency_network;
  Cited<units::Seconds> base_latency; // once per collective
  Cited<int> socket_threads;          // CPU threads driving one TCP connection
  Cited<int> channels_per_nic;        // rings (channels) a NIC carries, each on a connection of its own
  Cited<int> qps_per_connection;      // RDMA queue pairs a connection's bytes are split over
  Cited<bool> pxn;                    // sends reach a NIC on another GPU's rail over NVLink first
};

CollectiveSpec read_collective(EntryReader& r);

} // namespace dpusim::catalog
