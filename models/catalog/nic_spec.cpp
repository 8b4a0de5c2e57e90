#include "models/catalog/nic_spec.hpp"

#include "models/catalog/entry_reader.hpp"

namespace dpusim::catalog {

NicSpec read_nic(EntryReader& r, const Sources& sources) {
  using namespace units;
  NicSpec n;
  n.name = r.name();
  n.description = r.description();
  n.kind = r.map().required("kind").as_choice({"nic", "dpu"}) == "dpu" ? DeviceKind::dpu : DeviceKind::nic;
  n.line_rate = r.quantity<DataRate>("line_rate");
  n.pcie_bandwidth = r.quantity<DataRate>("pcie_bandwidth");
  n.latency = r.quantity<Seconds>("latency");
  n.rdma_efficiency = r.number("rdma_efficiency", 0.05, 1.0);
  n.collective_efficiency = r.number("collective_efficiency", 0.05, 1.0);
  n.power = r.quantity<Power>("power");
  for (const auto& item : r.map().required("offloads", "a list of functions").as_sequence().items())
    n.offloads.push_back(item.as_choice({"transport"}));
  if (n.kind == DeviceKind::dpu) {
    n.nic_core = r.text("nic_core");
    // The Arm complex is described like a host CPU, with its own name, description and sources.
    EntryReader arm_reader(r.map().required("arm", "the DPU's Arm complex").as_map(), sources);
    n.arm = read_cpu(arm_reader);
    arm_reader.finish();
  } else if (auto core = r.optional_text("nic_core")) {
    n.nic_core = *core;
  }
  return n;
}

} // namespace dpusim::catalog
