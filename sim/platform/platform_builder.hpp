// Turns the topology into the engine's PlatformDecl: one host per GPU (speed 1: work is GPU-seconds),
// one multicore host per node CPU (work is core-seconds), one link per directed topology edge that some
// route uses, and the routes the plan asks for — chosen by the variant's transport (GPUDirect RDMA
// through the GPU's NIC, or staged through host memory for kernel TCP).
#pragma once

#include "sim/engine/platform_decl.hpp"
#include "sim/offload/variant.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/topology/router.hpp"

#include <map>
#include <utility>
#include <vector>

namespace dpusim::platform {

enum class HopKind { nvlink, network };

struct RouteInfo {
  std::vector<std::int32_t> links; // topology edge ids
  double latency_s = 0;
  HopKind kind = HopKind::nvlink;
  std::vector<int> nics; // global NIC ids (node * nics + local) the route crosses
};

class PlatformBuilder {
public:
  PlatformBuilder(const topology::Topology& topo, const topology::Router& router,
                  const scenario::Hardware& hw, offload::Transport transport);

  [[nodiscard]] engine::HostIndex gpu(int global_gpu) const { return global_gpu; }
  [[nodiscard]] engine::HostIndex cpu(int node) const { return gpus_ + node; }
  [[nodiscard]] int gpus() const { return gpus_; }
  [[nodiscard]] int nodes() const { return nodes_; }
  [[nodiscard]] int node_of(engine::HostIndex h) const;
  [[nodiscard]] bool is_cpu(engine::HostIndex h) const { return h >= gpus_; }
  [[nodiscard]] const topology::Topology& topology() const { return topo_; }

  /// The route between two GPUs for this variant (registered for the platform on first use).
  const RouteInfo& route(int src_gpu, int dst_gpu);

  [[nodiscard]] engine::PlatformDecl build() const;
  [[nodiscard]] std::size_t route_count() const { return routes_.size(); }

private:
  const topology::Topology& topo_;
  const topology::Router& router_;
  const scenario::Hardware& hw_;
  offload::Transport transport_;
  int gpus_ = 0;
  int nodes_ = 0;
  std::map<std::pair<int, int>, RouteInfo> routes_;
};

} // namespace dpusim::platform
