#include "sim/scenario/hardware.hpp"

#include <fmt/format.h>

namespace dpusim::scenario {

Hardware resolve_hardware(const Scenario& s, const catalog::Catalog& cat, const offload::Variant& variant) {
  Hardware hw;
  hw.node = *cat.node(s.cluster.node);
  hw.gpu = *cat.gpu(hw.node.gpu);
  hw.cpu = *cat.cpu(hw.node.cpu);
  hw.nic = variant.on_dpu ? *cat.nic(s.cluster.dpu) : *cat.nic(s.cluster.nic);
  if (s.cluster.storage.separate_fabric && !s.cluster.storage.node_nic.empty())
    hw.storage_nic = *cat.nic(s.cluster.storage.node_nic);
  hw.collective = *cat.collective("nccl");
  hw.fabric_switch = *cat.network_switch(s.cluster.fabric.switch_model);
  return hw;
}

const catalog::NicSpec* Hardware::frontend_dpu(offload::Function f) const {
  if (!storage_nic || storage_nic->kind != catalog::DeviceKind::dpu || !storage_nic->arm ||
      (f != offload::Function::storage && f != offload::Function::agents) ||
      !storage_nic->offloads.on_arm(offload::function_name(f)))
    return nullptr;
  return &*storage_nic;
}

const std::optional<catalog::CpuSpec>& Hardware::arm_for(offload::Function f) const {
  const auto* frontend = frontend_dpu(f);
  return frontend != nullptr ? frontend->arm : nic.arm;
}

std::vector<offload::Function> frontend_functions(const ClusterConfig& cluster, const catalog::Catalog& cat) {
  std::vector<offload::Function> out;
  if (!cluster.storage.separate_fabric || cluster.storage.node_nic.empty())
    return out;
  Hardware hw;
  if (const auto* port = cat.nic(cluster.storage.node_nic))
    hw.storage_nic = *port;
  for (const auto f : {offload::Function::storage, offload::Function::agents})
    if (hw.frontend_dpu(f) != nullptr)
      out.push_back(f);
  return out;
}

offload::Requirements requirements(const Scenario& s, const catalog::Catalog& cat) {
  auto r = s.requirements();
  r.frontend = frontend_functions(s.cluster, cat);
  return r;
}

bool runs_on_frontend(const Scenario& s, const offload::Variant& v, const Hardware& hw) {
  const auto req = s.requirements();
  bool any = false;
  for (const auto f : {offload::Function::storage, offload::Function::agents})
    any = any || (offload::matters(f, req) && v.placement[f] == offload::Site::dpu_arm &&
                  hw.frontend_dpu(f) != nullptr);
  return any;
}

std::string describe(const CalibratedValue& cv) {
  return fmt::format("{} = {} ({}{}{})", cv.key, cv.value, cv.provenance, cv.used ? "" : ", unused",
                     cv.note.empty() ? std::string() : "; " + cv.note);
}

} // namespace dpusim::scenario
