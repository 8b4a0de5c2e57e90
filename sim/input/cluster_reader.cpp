// The cluster: section of a scenario (nodes, devices, fabric, services, storage, other tenants).
#include "sim/input/section_readers.hpp"

#include <fmt/format.h>

namespace dpusim::input {

using namespace scenario;

namespace {

FabricConfig read_fabric(yaml::Map m, const catalog::Catalog& cat) {
  m.declare(keys_of("cluster.fabric"));
  FabricConfig f;
  const std::string topo = m.required("topology").as_choice({"fat-tree", "rail-optimized"});
  f.kind = topo == "fat-tree" ? topology::FabricKind::fat_tree : topology::FabricKind::rail_optimized;
  if (auto t = m.optional("tiers"))
    f.tiers = static_cast<int>(t->as_int(2, 3));
  f.link = m.required("link", "a data rate such as 400Gbps").as_quantity<units::DataRate>();
  f.latency = m.required("latency", "a duration such as 1us").as_quantity<units::Seconds>(true);
  auto ratio = [](const yaml::Node& o) {
    const std::string text = o.as_string();
    double r = 1.0;
    try {
      r = units::parse_ratio(text);
    } catch (const units::UnitError& e) {
      o.fail(e.what());
    }
    if (r < 1.0)
      o.fail(fmt::format("must be at least 1:1 (down-links to up-links), found \"{}\"", text));
    return r;
  };
  if (auto o = m.optional("oversubscription"))
    f.oversubscription = ratio(*o);
  if (auto o = m.optional("core_oversubscription")) {
    if (f.tiers == 2)
      o->fail("core_oversubscription applies to the core tier of a three-tier fabric; set tiers: 3");
    f.core_oversubscription = ratio(*o);
  }
  f.switch_model = "sn5600";
  if (auto s = m.optional("switch"))
    f.switch_model = catalog_name(*s, cat.switch_names(), "switch", cat, "switch");
  if (auto r = m.optional("routing")) {
    const auto mode = r->as_choice({"ecmp", "adaptive", "pinned"});
    f.routing = mode == "adaptive" ? topology::Routing::adaptive
                : mode == "pinned" ? topology::Routing::pinned
                                   : topology::Routing::ecmp;
  }
  if (auto o = m.optional("owned")) {
    auto om = o->as_map();
    om.declare(keys_of("cluster.fabric.owned"));
    OwnedFabric owned;
    owned.leaves = static_cast<int>(om.required("leaves", "the leaf switches you have").as_int(1, 1 << 16));
    if (auto n = om.optional("spines"))
      owned.spines = static_cast<int>(n->as_int(0, 1 << 16));
    if (auto n = om.optional("cores"))
      owned.cores = static_cast<int>(n->as_int(0, 1 << 16));
    om.finish();
    f.owned = owned;
  }
  m.finish();
  return f;
}

} // namespace

ClusterConfig read_cluster(yaml::Map m, const catalog::Catalog& cat) {
  m.declare(keys_of("cluster"));
  ClusterConfig c;
  c.nodes = static_cast<int>(m.required("nodes", "the number of nodes").as_int(1, 1 << 16));
  c.node =
      catalog_name(m.required("node", "a node type from the catalog"), cat.node_names(), "node", cat, "node");
  const auto* node = cat.node(c.node);
  c.gpus_per_node = node->gpus.value;
  if (auto g = m.optional("gpus_per_node"))
    c.gpus_per_node = static_cast<int>(g->as_int(1, node->gpus.value));
  c.nic = node->nic;
  if (auto n = m.optional("nic"))
    c.nic = catalog_name(*n, cat.nic_names(), "NIC", cat, "nic");
  if (auto d = m.optional("dpu")) {
    c.dpu = catalog_name(*d, cat.nic_names(), "DPU", cat, "nic");
  } else {
    // The DPU built around this NIC's ConnectX generation, if the catalog has one.
    for (const auto& name : cat.nic_names()) {
      const auto* device = cat.nic(name);
      if (device->kind == catalog::DeviceKind::dpu && (device->nic_core == c.nic || name == c.nic))
        c.dpu = name;
    }
  }
  const auto fabric_node = m.required("fabric");
  c.fabric = read_fabric(fabric_node.as_map(), cat);
  if (auto sv = m.optional("services")) {
    auto sm = sv->as_map();
    sm.declare(keys_of("cluster.services"));
    if (auto e = sm.optional("encryption")) {
      const auto name = e->as_choice({"none", "ipsec", "tls"});
      c.services.encryption = name == "ipsec" ? offload::Encryption::ipsec
                              : name == "tls" ? offload::Encryption::tls
                                              : offload::Encryption::none;
    }
    if (auto o = sm.optional("overlay"))
      c.services.overlay = o->as_choice({"none", "vxlan"}) == "vxlan";
    if (auto a = sm.optional("agents"))
      c.services.agent_cores = a->as_number(0, 4096);
    sm.finish();
  }
  if (auto p = m.optional("placement"))
    c.scattered = p->as_choice({"packed", "scattered"}) == "scattered";
  if (auto tn = m.optional("tenants")) {
    auto tm = tn->as_map();
    tm.declare(keys_of("cluster.tenants"));
    c.tenants.flows = static_cast<int>(
        tm.required("flows", "other tenants' bulk flows per leaf crossing the spines, e.g. 8")
            .as_int(1, 4096));
    if (auto iso = tm.optional("isolation"))
      c.tenants.dpu_qos = iso->as_choice({"shared", "dpu_qos"}) == "dpu_qos";
    if (auto g = tm.optional("guarantee")) {
      c.tenants.guarantee = g->as_number(0.0, 1.0);
      if (!(c.tenants.guarantee > 0 && c.tenants.guarantee < 1))
        g->fail("the guaranteed share of the up-links is a fraction strictly between 0 and 1, e.g. 0.6");
    }
    tm.finish();
  }
  if (auto st = m.optional("storage")) {
    auto sm = st->as_map();
    sm.declare(keys_of("cluster.storage"));
    c.storage.servers =
        static_cast<int>(sm.required("servers", "the number of storage servers").as_int(1, 1 << 16));
    c.storage.link =
        sm.required("link", "each server's port speed, e.g. 400Gbps").as_quantity<units::DataRate>();
    c.storage.read_rate = sm.required("read_rate", "each server's media read throughput, e.g. 25GB/s")
                              .as_quantity<units::DataRate>();
    c.storage.write_rate = c.storage.read_rate;
    if (auto wr = sm.optional("write_rate"))
      c.storage.write_rate = wr->as_quantity<units::DataRate>();
    if (auto fabric = sm.optional("fabric")) {
      c.storage.separate_fabric = fabric->as_choice({"shared", "separate"}) == "separate";
      if (c.storage.separate_fabric) {
        if (auto nn = sm.optional("node_nic")) {
          c.storage.node_nic = catalog_name(*nn, cat.nic_names(), "NIC", cat, "nic");
          c.storage.node_link = cat.nic(c.storage.node_nic)->line_rate.value;
          if (auto nl = sm.optional("node_link"))
            c.storage.node_link = nl->as_quantity<units::DataRate>();
        } else {
          c.storage.node_link = sm.required("node_link", "each tray's storage port on the separate storage "
                                                         "fabric, e.g. 200Gbps, or node_nic: a catalog NIC "
                                                         "or DPU")
                                    .as_quantity<units::DataRate>();
        }
      }
    }
    if (!c.storage.separate_fabric) {
      if (auto nl = sm.optional("node_link"))
        c.storage.node_link = nl->as_quantity<units::DataRate>();
      if (auto nn = sm.optional("node_nic"))
        c.storage.node_nic = catalog_name(*nn, cat.nic_names(), "NIC", cat, "nic");
    }
    if (auto cc = sm.optional("client_connections"))
      c.storage.client_connections = static_cast<int>(cc->as_int(1, 1024));
    if (auto sc = sm.optional("snap_cores"))
      c.storage.snap_cores = static_cast<int>(sc->as_int(1, 4096));
    if (auto rl = sm.optional("read_latency")) {
      auto lm = rl->as_map();
      lm.declare(keys_of("cluster.storage.read_latency"));
      c.storage.read_latency_median =
          lm.required("median", "one sample read's median latency, e.g. 500us").as_quantity<units::Seconds>();
      c.storage.read_latency_p99 =
          lm.required("p99", "its 99th percentile, e.g. 5ms").as_quantity<units::Seconds>();
      lm.finish();
    }
    sm.finish();
  }
  m.finish();
  return c;
}

} // namespace dpusim::input
