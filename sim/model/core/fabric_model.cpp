// The fabric between the nodes: a two- or three-tier fat-tree or rail-optimized Clos of catalog
// switches, its link speed, latency and oversubscription.
#include "models/core/unit_parse.hpp"
#include "sim/model/catalog_names.hpp"
#include "sim/model/model.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/topology/topology.hpp"

#include <fmt/format.h>
#include <memory>
#include <stdexcept>

namespace dpusim::model {
namespace {

class FabricModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "fabric"; }
  [[nodiscard]] std::string_view summary() const override {
    return "leaf/spine (or pods and core) Clos fabric of catalog switches, fat-tree or rail-optimized";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"cluster.fabric", "section", "required", "the network between the nodes"},
        {"cluster.fabric.topology", "choice", "required",
         "fat-tree (a node's NICs on one leaf) | rail-optimized (NIC k on rail leaf k)"},
        {"cluster.fabric.tiers", "count", "the fewest that hold the cluster",
         "2 (leaf/spine) | 3 (pods of leaves and spines joined by core switches)"},
        {"cluster.fabric.link", "data rate", "required", "switch-to-switch link speed, at least the NIC's"},
        {"cluster.fabric.latency", "duration", "required", "latency per switch hop"},
        {"cluster.fabric.oversubscription", "ratio", "1:1", "a leaf's down-link to up-link bandwidth"},
        {"cluster.fabric.core_oversubscription", "ratio", "1:1",
         "three tiers: a pod spine's down-links to its core up-links"},
        {"cluster.fabric.switch", "catalog switch", "sn5600", "gives the radix at the link speed"},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    const auto& c = s.cluster;
    const auto& f = c.fabric;
    if (f.oversubscription < 1.0)
      out.push_back(
          {"cluster.fabric.oversubscription",
           fmt::format("must be at least 1:1 (down-links to up-links), found {:g}:1", f.oversubscription)});
    if (f.core_oversubscription < 1.0)
      out.push_back({"cluster.fabric.core_oversubscription",
                     fmt::format("must be at least 1:1 (down-links to up-links), found {:g}:1",
                                 f.core_oversubscription)});
    if (f.tiers == 2 && f.core_oversubscription != 1.0)
      out.push_back({"cluster.fabric.core_oversubscription",
                     "core_oversubscription applies to the core tier of a three-tier fabric; set tiers: 3"});
    const auto* sw = cat.network_switch(f.switch_model);
    if (sw == nullptr) {
      out.push_back({"cluster.fabric.switch", unknown_name(f.switch_model, cat.switch_names(), "switch")});
      return;
    }
    const auto* node = cat.node(c.node);
    const auto* nic = cat.nic(c.nic);
    if (node == nullptr || nic == nullptr)
      return; // the cluster model says so
    // The fabric must be able to hold the cluster (radix, oversubscription, NIC speed).
    if (sw->ports_at(f.link) < 2) {
      out.push_back(
          {"cluster.fabric", fmt::format("a {} switch has no {} ports (its ports run at {})", sw->name,
                                         units::format(f.link), units::format(sw->port_speed.value))});
      return;
    }
    const auto before = out.size();
    if (nic->line_rate.value > f.link)
      out.push_back({"cluster.fabric",
                     fmt::format("links of {} are slower than the {} NIC's {} port", units::format(f.link),
                                 nic->name, units::format(nic->line_rate.value))});
    if (const auto* dpu = c.dpu.empty() ? nullptr : cat.nic(c.dpu);
        dpu != nullptr && dpu->line_rate.value > f.link)
      out.push_back({"cluster.fabric",
                     fmt::format("links of {} are slower than the {} DPU's {} port", units::format(f.link),
                                 dpu->name, units::format(dpu->line_rate.value))});
    if (out.size() != before || c.nodes < 1 || c.gpus_per_node < 1 || c.gpus_per_node > node->gpus.value ||
        f.oversubscription < 1.0 || f.core_oversubscription < 1.0)
      return; // reported above; the shape cannot be computed
    try {
      (void)topology::fabric_shape(scenario::cluster_layout(c, *node, *cat.gpu(node->gpu), *nic, *sw));
    } catch (const std::invalid_argument& e) {
      out.push_back({"cluster.fabric", e.what()});
    }
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto& topo = run.topology;
    if (topo.tiers() == 3)
      r.notes.push_back(
          fmt::format("the fabric has three tiers: {} leaves in {} pods, {} spines, {} core switches",
                      topo.num_leaves(), topo.num_pods(), topo.num_spines(), topo.num_cores()));
  }
};

} // namespace

std::unique_ptr<Model> make_fabric_model() {
  return std::make_unique<FabricModel>();
}

} // namespace dpusim::model
