// The nodes of the cluster: how many, of which catalog type, which of their GPUs are used, and the
// network device of each variant (the node's NIC, or the DPU built around its ConnectX core).
#include "models/base/text_distance.hpp"
#include "sim/model/catalog_names.hpp"
#include "sim/model/model.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

class ClusterModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "cluster"; }
  [[nodiscard]] std::string_view summary() const override {
    return "nodes of a catalog type, the GPUs used in each, their NIC and DPU; the host CPU's cores";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"cluster.nodes", "count", "required", "nodes in the cluster"},
        {"cluster.gpus_per_node", "count", "all of the node's", "GPUs used in each node"},
        {"cluster.node", "catalog node", "required",
         "the node type (GPUs, host CPUs, PCIe and NVLink layout)"},
        {"cluster.nic", "catalog NIC", "the node's own", "the network device of the NIC variants"},
        {"cluster.dpu", "catalog DPU", "the DPU built around the NIC's ConnectX core",
         "the network device of the DPU variants"},
    };
  }
  [[nodiscard]] std::vector<CalibrationBinding> calibration() const override {
    return {
        {"host_cpu.cores", "cpu.cores (per socket)",
         [](scenario::Hardware& hw, double v, const catalog::Citation& c) {
           // A profile measures one host: a server, or one tray of a rack.
           const int sockets = hw.node.cpu_sockets.value / hw.node.trays.value;
           hw.cpu.cores = {std::max(1, static_cast<int>(std::lround(v / sockets))), c};
           return true;
         },
         [](const scenario::Hardware& hw) -> std::optional<double> { return hw.host_cores(); }},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    const auto& c = s.cluster;
    if (c.nodes < 1)
      out.push_back({"cluster.nodes", fmt::format("must be at least 1, found {}", c.nodes)});
    const auto* node = cat.node(c.node);
    if (node == nullptr) {
      out.push_back({"cluster.node", unknown_name(c.node, cat.node_names(), "node")});
      return;
    }
    if (c.gpus_per_node < 1 || c.gpus_per_node > node->gpus.value)
      out.push_back(
          {"cluster.gpus_per_node", fmt::format("must be between 1 and {} (the GPUs of a {}), found {}",
                                                node->gpus.value, c.node, c.gpus_per_node)});
    if (cat.nic(c.nic) == nullptr)
      out.push_back({"cluster.nic", unknown_name(c.nic, cat.nic_names(), "NIC")});
    if (!c.dpu.empty()) {
      const auto* dpu = cat.nic(c.dpu);
      if (dpu == nullptr) {
        out.push_back({"cluster.dpu", unknown_name(c.dpu, cat.nic_names(), "DPU")});
      } else if (dpu->kind != catalog::DeviceKind::dpu) {
        std::vector<std::string> dpus;
        for (const auto& n : cat.nic_names())
          if (cat.nic(n)->kind == catalog::DeviceKind::dpu)
            dpus.push_back(n);
        out.push_back({"cluster.dpu", fmt::format("\"{}\" is a NIC, not a DPU; DPUs in the catalog: {}",
                                                  c.dpu, join(dpus))});
      }
    }
  }
};

} // namespace

std::unique_ptr<Model> make_cluster_model() {
  return std::make_unique<ClusterModel>();
}

} // namespace dpusim::model
