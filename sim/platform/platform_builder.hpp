// Turns the topology into the engine's PlatformDecl: one host per GPU (speed 1: work is GPU-seconds),
// one multicore host per node CPU and per DPU Arm complex (work is core-seconds), one host per storage
// server (its media: work is seconds of reading), one link per directed topology edge that some route
// uses, and the routes the plan asks for — chosen by the variant: GPUDirect RDMA through the GPU's NIC,
// or kernel TCP staged through host memory (and through the DPU's Arm cores when encryption or the
// virtual switch runs there). A NIC's inline encryption engine is an extra link on encrypted paths.
#pragma once

#include "sim/engine/platform_decl.hpp"
#include "sim/offload/variant.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/topology/router.hpp"

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace dpusim::platform {

enum class HopKind { nvlink, network };

struct RouteInfo {
  std::vector<std::int32_t> links; // topology edge ids (and engine links beyond them)
  double latency_s = 0;
  HopKind kind = HopKind::nvlink;
  std::vector<int> nics; // global NIC ids (node * nics + local) the route crosses
};

/// How inter-node bytes travel in a variant.
struct PathOptions {
  offload::Transport transport = offload::Transport::rdma;
  bool through_arm = false;                     // TCP traffic detours through the DPU's Arm cores
  std::optional<units::DataRate> crypto_engine; // inline encryption engine of each NIC, per direction
};

class PlatformBuilder {
public:
  enum class HostKind { gpu, cpu, arm, storage, tenant, limiter };

  PlatformBuilder(const topology::Topology& topo, const topology::Router& router,
                  const scenario::Hardware& hw, offload::Transport transport);
  PlatformBuilder(const topology::Topology& topo, const topology::Router& router,
                  const scenario::Hardware& hw, PathOptions options);

  [[nodiscard]] engine::HostIndex gpu(int global_gpu) const { return global_gpu; }
  [[nodiscard]] engine::HostIndex cpu(int node) const { return gpus_ + node; }
  /// The Arm complex of the DPU in NIC slot `local_nic` of `node` (DPU variants only).
  [[nodiscard]] engine::HostIndex arm(int node, int local_nic) const;
  [[nodiscard]] engine::HostIndex storage(int server) const { return storage_base_ + server; }
  [[nodiscard]] int gpus() const { return gpus_; }
  [[nodiscard]] int nodes() const { return nodes_; }
  [[nodiscard]] int storage_servers() const { return topo_.num_storage(); }
  /// Other tenants' cross-traffic endpoints (Topology::tenant), after the storage servers.
  [[nodiscard]] engine::HostIndex tenant(int index) const {
    return storage_base_ + storage_servers() + index;
  }
  [[nodiscard]] int tenants() const { return topo_.num_tenants(); }
  /// A private host of `cores` cores of speed `rate` (work units per second) that nothing else uses: a
  /// load on it next to a load of the same amount on another host caps that load at `rate`, and the
  /// loads placed on it together at `cores x rate` (SimGrid's parallel-task model has no per-activity
  /// bound).
  engine::HostIndex add_limiter(double rate, int cores = 1);
  [[nodiscard]] bool has_arm() const { return topo_.layout().node.dpu; }
  [[nodiscard]] HostKind kind_of(engine::HostIndex h) const;
  [[nodiscard]] int node_of(engine::HostIndex h) const;
  [[nodiscard]] bool is_cpu(engine::HostIndex h) const { return kind_of(h) == HostKind::cpu; }
  [[nodiscard]] const topology::Topology& topology() const { return topo_; }
  [[nodiscard]] const PathOptions& options() const { return options_; }

  /// The route between two GPUs for this variant (registered for the platform on first use).
  const RouteInfo& route(int src_gpu, int dst_gpu);
  /// The route between any two hosts; `local_nic` picks the NIC of a node end that is not a GPU.
  const RouteInfo& route_hosts(engine::HostIndex src, engine::HostIndex dst, int local_nic = 0);

  [[nodiscard]] engine::PlatformDecl build() const;
  [[nodiscard]] std::size_t route_count() const { return routes_.size(); }

private:
  [[nodiscard]] topology::VertexId vertex_of(engine::HostIndex h) const;
  /// A NIC's encryption engine, as an extra link id beyond the topology's edges.
  [[nodiscard]] std::int32_t engine_link(int global_nic, bool transmit) const;
  RouteInfo describe(const std::vector<topology::EdgeId>& edges, HopKind kind) const;

  const topology::Topology& topo_;
  const topology::Router& router_;
  const scenario::Hardware& hw_;
  PathOptions options_;
  int gpus_ = 0;
  int nodes_ = 0;
  int arm_base_ = 0;
  int storage_base_ = 0;
  std::map<std::pair<engine::HostIndex, engine::HostIndex>, RouteInfo> routes_;
  std::vector<std::pair<double, int>>
      limiters_; // (speed, cores) of the limiter hosts, after the storage servers
};

} // namespace dpusim::platform
