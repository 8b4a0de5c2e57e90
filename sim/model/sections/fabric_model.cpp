// The fabric between the nodes: a two- or three-tier fat-tree or rail-optimized Clos of catalog
// switches, its link speed, latency and oversubscription.
#include "models/base/unit_parse.hpp"
#include "sim/model/catalog_names.hpp"
#include "sim/model/model.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/topology/fabric_bill.hpp"
#include "sim/topology/topology.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>
#include <stdexcept>

namespace dpusim::model {
namespace {

/// A value of the result (not a CSV column), set only where the scenario asks for adaptive routing: 1
/// where the fabric routed the variant's traffic adaptively, 0 where it hashed it.
constexpr const char* kAdaptiveColumn = "adaptive_routing";

/// The source keys a device's out-of-order placement rests on (its note is in the catalog entry).
std::string ooo_citation(const catalog::NicSpec& nic, const catalog::SwitchSpec& sw) {
  const auto& flag = sw.link_layer == catalog::LinkLayer::infiniband ? nic.out_of_order_infiniband
                                                                     : nic.out_of_order_ethernet;
  if (!flag)
    return "its catalog entry does not say it does";
  const auto& text = flag->cite.text;
  return flag->cite.kind == catalog::Citation::Kind::source ? text.substr(0, text.find(" ("))
                                                            : flag->cite.describe();
}

/// Adaptive routing needs a switch that can, and some device of the cluster (its NIC or DPU) that places
/// out-of-order packets on the switch's link layer (a variant whose device cannot is hashed, and its result
/// says so).
void check_adaptive(const catalog::SwitchSpec& sw, const catalog::NicSpec* nic, const catalog::NicSpec* dpu,
                    Problems& out) {
  if (!sw.adaptive_routing.value) {
    out.push_back(
        {"cluster.fabric.routing",
         fmt::format("the {} switch does not route adaptively ({}); use routing: ecmp or another switch",
                     sw.name, sw.adaptive_routing.cite.describe())});
    return;
  }
  const auto layer = sw.link_layer;
  if ((nic != nullptr && nic->places_out_of_order(layer)) ||
      (dpu != nullptr && dpu->places_out_of_order(layer)))
    return;
  std::vector<std::string> devices;
  for (const auto* d : {nic, dpu})
    if (d != nullptr)
      devices.push_back(fmt::format("the {} ({})", d->name, ooo_citation(*d, sw)));
  out.push_back(
      {"cluster.fabric.routing",
       fmt::format("adaptive routing delivers a connection's packets out of order, and {}{} {} "
                   "out-of-order {} packets; use routing: ecmp, or a NIC or DPU that does (cluster.nic, "
                   "cluster.dpu)",
                   devices.size() > 1 ? "neither " : "", fmt::join(devices, " nor "),
                   devices.size() > 1 ? "places" : "does not place", catalog::link_layer_name(layer))});
}

/// The fabric the user has must hold what the cluster's fabric needs, tier by tier.
void check_owned(const scenario::OwnedFabric& owned, const topology::FabricBill& needed, int nodes,
                 Problems& out) {
  const auto tier = [&](const char* key, const char* what, int have, int need) {
    if (have < need)
      out.push_back(
          {fmt::format("cluster.fabric.owned.{}", key),
           fmt::format("{} {}{} stated, but {} nodes on this fabric need {} (leaves {}, spines {}, "
                       "cores {}, as its builder would buy them): state the fabric you have, or fewer "
                       "nodes",
                       have, what, have == 1 ? "" : "es", nodes, need, needed.leaves, needed.spines,
                       needed.cores)});
  };
  tier("leaves", "leaf switch", owned.leaves, needed.leaves);
  tier("spines", "spine switch", owned.spines, needed.spines);
  tier("cores", "core switch", owned.cores, needed.cores);
}

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
        {"cluster.fabric.routing", "choice", "ecmp",
         "ecmp (each connection hashed onto one equal-cost port) | adaptive (each packet over the least "
         "loaded one; needs a switch that can and a NIC or DPU that places out-of-order packets) | pinned "
         "(each destination's traffic up the port of its index on its leaf)"},
        {"cluster.fabric.owned", "section", "none: sized as its builder buys it",
         "the fabric you have: a plan counts, powers and prices its switches for every point, and a "
         "cluster that needs more of a tier is refused"},
        {"cluster.fabric.owned.leaves", "count", "required", "leaf switches"},
        {"cluster.fabric.owned.spines", "count", "0", "spine switches (every pod's)"},
        {"cluster.fabric.owned.cores", "count", "0", "core switches"},
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
    if (f.routing == topology::Routing::adaptive) {
      // The cluster's devices, whichever of them the variants run on: a variant on a device that cannot
      // is hashed with a note, so that a comparison and each point of a plan (one variant each) agree.
      const auto* dpu = c.dpu.empty() ? nullptr : cat.nic(c.dpu);
      check_adaptive(*sw, nic, dpu, out);
    }
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
      const auto layout = scenario::cluster_layout(c, *node, *cat.gpu(node->gpu), *nic, *sw);
      (void)topology::fabric_shape(layout);
      if (f.owned)
        check_owned(*f.owned, topology::fabric_bill(layout), c.nodes, out);
    } catch (const std::invalid_argument& e) {
      out.push_back({"cluster.fabric", e.what()});
    }
  }
  [[nodiscard]] std::vector<report::Output> outputs() const override {
    return {{kAdaptiveColumn, "flag", "1 where the fabric routes adaptively (pooled up-links), else 0", false,
             false}};
  }
  [[nodiscard]] report::Explainer explainer() const override {
    report::Explainer e;
    e.cause = [](const report::VariantResult& slow, const report::VariantResult& fast, double comm_share) {
      if (slow.value(kAdaptiveColumn) != 0 || fast.value(kAdaptiveColumn) != 1)
        return std::string();
      std::string s = fmt::format(
          " {:.0f}% of the difference is exposed communication: the fabric routes {}'s packets adaptively "
          "(its {} places them out of order), each over the least loaded equal-cost link, while it hashes "
          "each connection of {} ({}) onto one link, where connections collide",
          100 * comm_share, fast.variant, fast.device, slow.variant, slow.device);
      const auto& a = slow.metrics;
      const auto& b = fast.metrics;
      if (a.ep_comm_s > b.ep_comm_s * 1.01)
        s += fmt::format("; the experts' all-to-alls take {:.4f} s vs {:.4f} s per step", a.ep_comm_s,
                         b.ep_comm_s);
      if (a.dp_comm_s > b.dp_comm_s * 1.01)
        s += fmt::format("; the data-parallel reduction {:.1f}x as long",
                         a.dp_comm_s / std::max(1e-12, b.dp_comm_s));
      return s + ".";
    };
    return e;
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto& topo = run.topology;
    if (run.scenario.cluster.fabric.routing == topology::Routing::adaptive) {
      const auto& sw = run.hardware.fabric_switch;
      r.set_value(kAdaptiveColumn, topo.layout().fabric.pooled ? 1.0 : 0.0);
      if (topo.layout().fabric.pooled)
        r.notes.push_back(fmt::format(
            "routing: adaptive; the {} places out-of-order {} packets, so each packet takes the least loaded "
            "equal-cost port: modelled as ideal, each tier's equal-cost links acting as one of their summed "
            "rate (no hash collisions; docs/models/routing.md)",
            run.hardware.nic.name, catalog::link_layer_name(sw.link_layer)));
      else
        r.notes.push_back(fmt::format(
            "routing: adaptive asked for, but the {} does not place out-of-order {} packets ({}): the "
            "switches hash its connections (ECMP) in this variant",
            run.hardware.nic.name, catalog::link_layer_name(sw.link_layer),
            ooo_citation(run.hardware.nic, sw)));
    }
    if (run.scenario.cluster.fabric.routing == topology::Routing::pinned)
      r.notes.push_back(
          "routing: pinned; each switch sends a destination's traffic up the port of the destination's index "
          "on its leaf, modulo its equal-cost ports (path pinning, META-ROCE): no hashing, so more queue "
          "pairs "
          "spread nothing, and a failed spine or an idle slice leaves some ports carrying two destinations "
          "(docs/models/routing.md)");
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
