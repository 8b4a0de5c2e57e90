// Offload variants: where each host-side function runs. A variant is a named placement; the registry
// below is at once the list `dpusim variants` prints, the validator of names in scenarios, and the
// description the reports use.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::offload {

/// How inter-node collective and pipeline traffic is carried.
enum class Transport {
  host_tcp, // kernel TCP on the host CPU (NCCL socket transport): CPU time per byte on both ends
  rdma,     // RoCE in NIC hardware with GPUDirect RDMA: no host CPU per byte
};

struct Variant {
  std::string_view name;
  std::string_view summary;
  Transport transport;
  bool needs_dpu; // runs on a BlueField (its NIC core carries the traffic)
};

std::span<const Variant> variant_registry();
const Variant* find_variant(std::string_view name);
std::vector<std::string> variant_names();
std::string_view transport_name(Transport t);

} // namespace dpusim::offload
