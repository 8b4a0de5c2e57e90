#include "sim/scenario/hardware.hpp"

namespace dpusim::scenario {

Hardware resolve_hardware(const Scenario& s, const catalog::Catalog& cat, const offload::Variant& variant) {
  Hardware hw;
  hw.node = *cat.node(s.cluster.node);
  hw.gpu = *cat.gpu(hw.node.gpu);
  hw.cpu = *cat.cpu(hw.node.cpu);
  hw.nic = variant.on_dpu ? *cat.nic(s.cluster.dpu) : *cat.nic(s.cluster.nic);
  hw.collective = *cat.collective("nccl");
  hw.fabric_switch = *cat.network_switch(s.cluster.fabric.switch_model);
  return hw;
}

} // namespace dpusim::scenario
