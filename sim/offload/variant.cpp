#include "sim/offload/variant.hpp"

#include <array>

namespace dpusim::offload {
namespace {

constexpr std::array kVariants{
    Variant{"host-tcp",
            "inter-node traffic through the host kernel TCP stack (NCCL socket transport); every byte costs "
            "send- and receive-side host CPU time",
            Transport::host_tcp, false},
    Variant{"rdma-nic",
            "RoCE with GPUDirect RDMA on the ConnectX NIC: the NIC moves bytes, no host CPU per byte",
            Transport::rdma, false},
    Variant{"dpu",
            "BlueField DPU: RDMA on its ConnectX core plus every host function its profile can offload",
            Transport::rdma, true},
};

} // namespace

std::span<const Variant> variant_registry() {
  return kVariants;
}

const Variant* find_variant(std::string_view name) {
  for (const auto& v : kVariants)
    if (v.name == name)
      return &v;
  return nullptr;
}

std::vector<std::string> variant_names() {
  std::vector<std::string> out;
  for (const auto& v : kVariants)
    out.emplace_back(v.name);
  return out;
}

std::string_view transport_name(Transport t) {
  return t == Transport::host_tcp ? "host-tcp" : "rdma";
}

} // namespace dpusim::offload
