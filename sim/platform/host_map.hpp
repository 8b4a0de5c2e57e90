// The simulated hosts of one variant's platform, fixed once the topology is built: one per GPU (speed 1:
// work is GPU-seconds), one multicore host per node CPU and per DPU Arm complex (work is core-seconds),
// one per storage server (its media: work is seconds of reading), one per other tenants' endpoint, then
// the limiters the plan adds (RouteRegistry::add_limiter). Planning looks hosts up here; it asks for
// routes and limiters from the RouteRegistry, explicitly.
#pragma once

#include "sim/engine/task_graph.hpp"
#include "sim/offload/variant.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/topology/layout.hpp"

#include <optional>

namespace dpusim::platform {

/// How inter-node bytes travel in a variant.
struct PathOptions {
  offload::Transport transport = offload::Transport::rdma;
  bool through_arm = false;                     // TCP traffic detours through the DPU's Arm cores
  std::optional<units::DataRate> crypto_engine; // inline encryption engine of each NIC, per direction
  /// GPUDirect sends to a GPU on another rail go over NVLink to the local GPU on that rail first and
  /// leave through its NIC (NCCL's PXN), so that the network hop joins NICs of the same rail.
  bool pxn = false;
  /// Connections between two GPUs' NICs that are hashed each on its own (NCCL's channels per NIC x
  /// queue pairs per connection): a GPU-to-GPU network route spreads its bytes equally over them.
  int connections = 1;
};

class HostMap {
public:
  enum class HostKind { gpu, cpu, arm, frontend_arm, storage, tenant, limiter };

  HostMap(const topology::Topology& topo, const scenario::Hardware& hw, PathOptions options);

  [[nodiscard]] engine::HostIndex gpu(int global_gpu) const { return global_gpu; }
  /// The host CPU of a node's tray (a single server is one tray).
  [[nodiscard]] engine::HostIndex cpu(int node, int tray = 0) const { return gpus_ + node * trays_ + tray; }
  /// The host CPU of the tray a GPU sits in, and of the tray of a node's NIC slot.
  [[nodiscard]] engine::HostIndex cpu_of_gpu(int global_gpu) const;
  [[nodiscard]] engine::HostIndex cpu_of_nic(int node, int local_nic) const;
  /// The tray of a GPU, CPU or Arm host in its node (0 for hosts outside the nodes).
  [[nodiscard]] int tray_of(engine::HostIndex h) const;
  [[nodiscard]] int trays() const { return trays_; }
  /// The Arm complex of the DPU in NIC slot `local_nic` of `node` (DPU variants only).
  [[nodiscard]] engine::HostIndex arm(int node, int local_nic) const;
  /// The NIC slot of an Arm complex's DPU in its node.
  [[nodiscard]] int arm_slot(engine::HostIndex arm_host) const { return (arm_host - arm_base_) % nics_; }
  /// The Arm complex of a tray's front-end DPU, its storage port's (only with StorageLayout::dpu).
  [[nodiscard]] engine::HostIndex frontend_arm(int node, int tray = 0) const;
  [[nodiscard]] bool has_frontend_arm() const { return frontend_arm_; }
  [[nodiscard]] engine::HostIndex storage(int server) const { return storage_base_ + server; }
  [[nodiscard]] int gpus() const { return gpus_; }
  [[nodiscard]] int nodes() const { return nodes_; }
  [[nodiscard]] int storage_servers() const { return storage_servers_; }
  /// Other tenants' cross-traffic endpoints (Topology::tenant), after the storage servers.
  [[nodiscard]] engine::HostIndex tenant(int index) const {
    return storage_base_ + storage_servers() + index;
  }
  [[nodiscard]] int tenants() const { return tenants_; }
  /// The first limiter's index: limiters follow every other host.
  [[nodiscard]] engine::HostIndex limiter_base() const {
    return storage_base_ + storage_servers() + tenants();
  }
  [[nodiscard]] bool has_arm() const { return arm_; }
  [[nodiscard]] HostKind kind_of(engine::HostIndex h) const;
  [[nodiscard]] int node_of(engine::HostIndex h) const;
  [[nodiscard]] bool is_cpu(engine::HostIndex h) const { return kind_of(h) == HostKind::cpu; }
  /// The topology vertex a host stands for (none for a limiter).
  [[nodiscard]] topology::VertexId vertex_of(engine::HostIndex h) const;
  [[nodiscard]] const topology::Topology& topology() const { return topo_; }
  [[nodiscard]] const scenario::Hardware& hardware() const { return hw_; }
  [[nodiscard]] const PathOptions& options() const { return options_; }

private:
  const topology::Topology& topo_;
  const scenario::Hardware& hw_;
  PathOptions options_;
  int gpus_ = 0;
  int nodes_ = 0;
  int trays_ = 1;
  int arm_base_ = 0;
  int frontend_arm_base_ = 0;
  int storage_base_ = 0;
  int nics_ = 1;            // per node
  int storage_servers_ = 0; // the topology's, and its tenants' endpoints
  int tenants_ = 0;
  bool arm_ = false;          // DPUs in the NIC slots
  bool frontend_arm_ = false; // front-end DPUs as the storage ports
};

} // namespace dpusim::platform
