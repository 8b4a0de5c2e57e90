#include "models/catalog/node_spec.hpp"

#include "models/catalog/entry_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace dpusim::catalog {

NodeSpec read_node(EntryReader& r) {
  using namespace units;
  NodeSpec n;
  n.name = r.name();
  n.description = r.description();
  n.gpu = r.text("gpu");
  n.cpu = r.text("cpu");
  n.nic = r.text("nic");
  // NVLink 5 joins up to 576 GPUs in one domain (NVLINK-576); a tray holds at most 8 sockets.
  n.gpus = r.count("gpus", 1, 576);
  n.cpu_sockets = r.count("cpu_sockets", 1, 8 * 72);
  n.nics = r.count("nics", 1, 576);
  n.pcie_switches = r.count("pcie_switches", 1, 576);
  if (auto trays = r.optional_count("trays", 1, 72)) {
    n.trays = *trays;
    const auto where = *r.optional_node("trays");
    for (const auto& [key, count] : {std::pair<const char*, int>{"gpus", n.gpus.value},
                                     {"cpu_sockets", n.cpu_sockets.value},
                                     {"nics", n.nics.value},
                                     {"pcie_switches", n.pcie_switches.value}})
      if (count % n.trays.value != 0)
        where.fail(fmt::format("the node's {} {} do not split evenly over its {} trays: each tray holds "
                               "the same number, so {} must be a multiple of the tray count",
                               count, key, n.trays.value, key));
  } else {
    n.trays = {1, {Citation::Kind::assumption, "one tray: the node is a single server"}};
    if (n.cpu_sockets.value > 8)
      r.optional_node("cpu_sockets")
          ->fail(fmt::format("a single server holds at most 8 CPU sockets, found {}; a rack of trays "
                             "states its trays (trays: N)",
                             n.cpu_sockets.value));
  }
  n.pcie_uplink = r.quantity<DataRate>("pcie_uplink");
  n.pcie_latency = r.quantity<Seconds>("pcie_latency");
  n.nvlink_latency = r.quantity<Seconds>("nvlink_latency");
  n.host_memory = r.quantity<Bytes>("host_memory");
  n.power = r.quantity<Power>("power");
  n.platform_power = r.optional_quantity<Power>("platform_power");
  n.interruptions = read_interruptions(r, "interruptions");
  n.network_interruptions = read_interruptions(r, "network_interruptions");
  n.software_interruptions = read_interruptions(r, "software_interruptions");
  return n;
}

int SwitchSpec::ports_at(units::DataRate link) const {
  // In double: an 800 Gb/s port split into 4 kb/s links is 2e8 of them, 64 times over an int. Such a
  // link is slower than any NIC (the fabric check refuses it); the count only has to stay finite.
  const double split = std::floor(port_speed.value / link + 1e-9);
  const double count = split >= 1 ? ports.value * split : 0;
  return static_cast<int>(std::min(count, static_cast<double>(std::numeric_limits<int>::max())));
}

std::string_view link_layer_name(LinkLayer l) {
  return l == LinkLayer::infiniband ? "InfiniBand" : "Ethernet";
}

SwitchSpec read_switch(EntryReader& r) {
  SwitchSpec s;
  s.name = r.name();
  s.description = r.description();
  s.ports = r.count("ports", 2, 4096);
  s.port_speed = r.quantity<units::DataRate>("port_speed");
  s.hashes_each_connection = r.flag("hashes_each_connection");
  s.link_layer = r.map().required("link_layer").as_choice({"ethernet", "infiniband"}) == "infiniband"
                     ? LinkLayer::infiniband
                     : LinkLayer::ethernet;
  s.adaptive_routing = r.flag("adaptive_routing");
  s.optics_power = r.optional_quantity<units::Power>("optics_power");
  return s;
}

} // namespace dpusim::catalog
