#include "models/catalog/nic_spec.hpp"

#include "models/catalog/entry_reader.hpp"

#include <algorithm>

namespace dpusim::catalog {

bool OffloadSupport::on_nic(std::string_view function) const {
  return std::find(nic.begin(), nic.end(), function) != nic.end();
}

bool OffloadSupport::on_arm(std::string_view function) const {
  return std::find(dpu_arm.begin(), dpu_arm.end(), function) != dpu_arm.end();
}

bool NicSpec::places_out_of_order(LinkLayer layer) const {
  const auto& flag = layer == LinkLayer::infiniband ? out_of_order_infiniband : out_of_order_ethernet;
  return flag && flag->value;
}

NicSpec read_nic(EntryReader& r, const Sources& sources) {
  using namespace units;
  NicSpec n;
  n.name = r.name();
  n.description = r.description();
  n.kind = r.map().required("kind").as_choice({"nic", "dpu"}) == "dpu" ? DeviceKind::dpu : DeviceKind::nic;
  n.line_rate = r.quantity<DataRate>("line_rate");
  n.pcie_bandwidth = r.quantity<DataRate>("pcie_bandwidth");
  n.latency = r.quantity<Seconds>("latency");
  n.latency_p99 = r.optional_quantity<Seconds>("latency_p99");
  n.rdma_efficiency = r.number("rdma_efficiency", 0.05, 1.0);
  n.collective_efficiency = r.number("collective_efficiency", 0.05, 1.0);
  n.power = r.quantity<Power>("power");
  n.optics_power = r.optional_quantity<Power>("optics_power");
  n.interruptions = read_interruptions(r, "interruptions");
  if (auto o = r.map().optional("out_of_order_placement")) {
    auto m = o->as_map();
    for (const char* key : {"ethernet", "infiniband"}) {
      if (auto v = m.optional(key)) {
        auto [node, cite] = r.value_and_citation(*v);
        (std::string_view(key) == "ethernet" ? n.out_of_order_ethernet : n.out_of_order_infiniband) =
            Cited<bool>{node.as_bool(), cite};
      }
    }
    m.finish();
  }
  {
    auto o = r.map().required("offloads", "the functions the device can take over").as_map();
    const std::vector<std::string> nic_functions{"transport", "storage", "encryption", "vswitch"};
    const std::vector<std::string> arm_functions{"storage", "encryption", "vswitch", "agents"};
    if (auto list = o.optional("nic"))
      for (const auto& item : list->as_sequence().items())
        n.offloads.nic.push_back(item.as_choice(nic_functions));
    if (auto list = o.optional("dpu_arm"))
      for (const auto& item : list->as_sequence().items())
        n.offloads.dpu_arm.push_back(item.as_choice(arm_functions));
    for (const char* key : {"ipsec_rate", "tls_rate"}) {
      if (auto v = o.optional(key)) {
        auto [node, cite] = r.value_and_citation(*v);
        (std::string_view(key) == "ipsec_rate" ? n.offloads.ipsec_rate : n.offloads.tls_rate) =
            Cited<DataRate>{node.as_quantity<DataRate>(), cite};
      }
    }
    o.finish();
    if (n.offloads.on_nic("encryption") && (!n.offloads.ipsec_rate || !n.offloads.tls_rate))
      r.map().required("offloads").fail("a device with inline encryption needs ipsec_rate and tls_rate");
    if (!n.offloads.dpu_arm.empty() && n.kind != DeviceKind::dpu)
      r.map().required("offloads").fail("only a DPU has Arm cores to run functions on (dpu_arm)");
  }
  if (n.kind == DeviceKind::dpu) {
    n.nic_core = r.text("nic_core");
    // The Arm complex is described like a host CPU, with its own name, description and sources.
    EntryReader arm_reader(r.map().required("arm", "the DPU's Arm complex").as_map(), sources);
    n.arm = read_cpu(arm_reader);
    // NVMe emulation (SNAP) polls with the cores of its own core mask: a DPU that runs it must say how
    // many.
    if (n.offloads.on_arm("storage") || arm_reader.map().contains("snap_cores"))
      n.arm->snap_cores = arm_reader.count("snap_cores", 1, n.arm->cores.value);
    arm_reader.finish();
  } else if (auto core = r.optional_text("nic_core")) {
    n.nic_core = *core;
  }
  return n;
}

} // namespace dpusim::catalog
