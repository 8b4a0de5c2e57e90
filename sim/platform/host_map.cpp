#include "sim/platform/host_map.hpp"

#include "sim/topology/topology.hpp"

#include <stdexcept>

namespace dpusim::platform {

HostMap::HostMap(const topology::Topology& topo, const scenario::Hardware& hw, PathOptions options)
    : topo_(topo), hw_(hw), options_(options) {
  nodes_ = topo.layout().nodes;
  trays_ = topo.layout().node.trays;
  gpus_ = nodes_ * topo.layout().node.gpus;
  arm_base_ = gpus_ + nodes_ * trays_;
  frontend_arm_base_ = arm_base_ + (topo.layout().node.dpu ? nodes_ * topo.layout().node.nics : 0);
  storage_base_ = frontend_arm_base_ + (topo.layout().storage.dpu ? nodes_ * trays_ : 0);
  nics_ = topo.layout().node.nics;
  storage_servers_ = topo.num_storage();
  tenants_ = topo.num_tenants();
  arm_ = topo.layout().node.dpu;
  frontend_arm_ = topo.layout().storage.dpu;
  if (options_.through_arm && !topo.layout().node.dpu)
    throw std::logic_error("a path through Arm cores needs DPUs in the topology");
}

engine::HostIndex HostMap::cpu_of_nic(int node, int local_nic) const {
  return cpu(node, topo_.tray_of_nic(local_nic));
}

engine::HostIndex HostMap::arm(int node, int local_nic) const {
  if (!has_arm())
    throw std::logic_error("this platform has no DPU Arm cores");
  return arm_base_ + node * topo_.layout().node.nics + local_nic;
}

engine::HostIndex HostMap::frontend_arm(int node, int tray) const {
  if (!has_frontend_arm())
    throw std::logic_error("this platform has no front-end DPU");
  return frontend_arm_base_ + node * trays_ + tray;
}

engine::HostIndex HostMap::cpu_of_gpu(int global_gpu) const {
  return cpu(topo_.node_of_gpu(global_gpu), topo_.tray_of_gpu(global_gpu % topo_.layout().node.gpus));
}

int HostMap::tray_of(engine::HostIndex h) const {
  switch (kind_of(h)) {
  case HostKind::gpu:
    return topo_.tray_of_gpu(h % topo_.layout().node.gpus);
  case HostKind::cpu:
    return (h - gpus_) % trays_;
  case HostKind::arm:
    return topo_.tray_of_nic(arm_slot(h));
  case HostKind::frontend_arm:
    return (h - frontend_arm_base_) % trays_;
  case HostKind::storage:
  case HostKind::tenant:
  case HostKind::limiter:
    return 0;
  }
  return 0;
}

HostMap::HostKind HostMap::kind_of(engine::HostIndex h) const {
  if (h < gpus_)
    return HostKind::gpu;
  if (h < arm_base_)
    return HostKind::cpu;
  if (h < frontend_arm_base_)
    return HostKind::arm;
  if (h < storage_base_)
    return HostKind::frontend_arm;
  if (h < storage_base_ + storage_servers())
    return HostKind::storage;
  if (h < limiter_base())
    return HostKind::tenant;
  return HostKind::limiter;
}

int HostMap::node_of(engine::HostIndex h) const {
  switch (kind_of(h)) {
  case HostKind::gpu:
    return topo_.node_of_gpu(h);
  case HostKind::cpu:
    return (h - gpus_) / trays_;
  case HostKind::arm:
    return (h - arm_base_) / topo_.layout().node.nics;
  case HostKind::frontend_arm:
    return (h - frontend_arm_base_) / trays_;
  case HostKind::storage:
  case HostKind::tenant:
  case HostKind::limiter:
    return -1;
  }
  return -1;
}

topology::VertexId HostMap::vertex_of(engine::HostIndex h) const {
  switch (kind_of(h)) {
  case HostKind::gpu:
    return topo_.gpu(h);
  case HostKind::cpu:
    return topo_.host_cpu((h - gpus_) / trays_, (h - gpus_) % trays_);
  case HostKind::arm: {
    const int i = h - arm_base_;
    return topo_.dpu_arm(i / topo_.layout().node.nics, i % topo_.layout().node.nics);
  }
  case HostKind::frontend_arm:
    return *topo_.storage_arm((h - frontend_arm_base_) / trays_, (h - frontend_arm_base_) % trays_);
  case HostKind::storage:
    return topo_.storage(h - storage_base_);
  case HostKind::tenant:
    return topo_.tenant(h - storage_base_ - storage_servers());
  case HostKind::limiter:
    break;
  }
  throw std::logic_error("unknown host");
}

} // namespace dpusim::platform
