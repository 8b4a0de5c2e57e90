#include "sim/estimate/checkpoint_estimate.hpp"

#include "sim/estimate/step_estimate.hpp"
#include "sim/model/checkpoint/checkpoint.hpp"

#include <algorithm>

namespace dpusim::estimate {

double checkpoint_write_s(const scenario::Scenario& s, const scenario::Hardware& hw,
                          const datapath::DataPath& path, const topology::ClusterLayout& layout) {
  const auto& ck = s.workload.checkpoint;
  if (!ck)
    return 0;
  const auto& st = s.cluster.storage;
  const double bytes = model::checkpoint_bytes_per_gpu(s.workload);
  const int per_node = layout.node.gpus;
  const long long gpus = static_cast<long long>(layout.nodes) * per_node;
  const int servers = std::max(1, st.servers);
  const double node_bytes = bytes * per_node;
  // A server takes GPUs i, i + servers, ...: the first (gpus mod servers) of them one more.
  const double on_server = static_cast<double>((gpus + servers - 1) / servers) * bytes;
  double t = on_server / st.write_rate.si();
  t = std::max(t, on_server / layout.storage.link.si());
  // The node's side: its storage port on a separate storage fabric, else the NIC ports its GPUs' shards
  // leave through (GPU g by NIC nic_of_gpu(g), evenly) and the PCIe switches' up-links they cross from
  // host memory.
  const int nics = std::max(1, layout.node.nics);
  const double per_nic = node_bytes / nics;
  const int trays = std::max(1, layout.node.trays);
  if (layout.storage.separate) {
    t = std::max(t, node_bytes / trays / layout.storage.node_link.si()); // a storage port per tray
    if (layout.storage.node_pcie.si() > 0)
      t = std::max(t, node_bytes / trays / layout.storage.node_pcie.si());
  } else {
    t = std::max(t, per_nic / std::min(layout.node.nic_line_rate.si(), layout.node.pcie_nic.si()));
  }
  const int switches = std::max(1, layout.node.pcie_switches);
  t = std::max(t, node_bytes / switches / layout.node.pcie_uplink.si());
  if (path.storage_through_arm() && !path.storage_on_frontend() && layout.node.dpu_internal_pcie.si() > 0)
    t = std::max(t, per_nic / layout.node.dpu_internal_pcie.si());
  // The storage client: each thread's share on one core, the threads sharing the host's cores (or each
  // DPU's Arm cores, the node's bytes split over its DPUs: the training NICs', or one front-end DPU per
  // tray).
  for (const auto& work : path.storage_write(node_bytes, st.client_connections)) {
    const int threads = std::max(1, work.threads);
    const auto* frontend = hw.frontend_dpu(offload::Function::storage);
    if (work.processor == datapath::Processor::host_cpu) {
      t = std::max(t, work.core_s / threads *
                          std::max(1.0, static_cast<double>(threads) / std::max(1, hw.node_host_cores())));
    } else if (path.storage_on_frontend() && frontend != nullptr) {
      t = std::max(t, work.core_s / (static_cast<double>(threads) * trays) *
                          std::max(1.0, static_cast<double>(threads) / frontend->arm->cores.value));
    } else if (hw.nic.arm) {
      t = std::max(t, work.core_s / (static_cast<double>(threads) * nics) *
                          std::max(1.0, static_cast<double>(threads) / hw.nic.arm->cores.value));
    }
  }
  return t;
}

} // namespace dpusim::estimate
