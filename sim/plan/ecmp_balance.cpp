#include "sim/plan/ecmp_balance.hpp"

#include "sim/topology/topology.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace dpusim::plan {

namespace {

int tier(topology::VertexKind k) {
  switch (k) {
  case topology::VertexKind::leaf:
    return 1;
  case topology::VertexKind::spine:
    return 2;
  case topology::VertexKind::core:
    return 3;
  default:
    return 0;
  }
}

} // namespace

EcmpImbalance ecmp_imbalance(const IterationPlan& plan, platform::RouteRegistry& routes) {
  const auto& hosts = routes.hosts();
  const auto& topo = hosts.topology();
  const auto& g = topo.graph();
  EcmpImbalance worst;
  std::unordered_map<std::int32_t, double> load; // link -> bytes
  auto is_transfer = [&plan](std::size_t id) {
    const auto& t = plan.graph.task(static_cast<engine::TaskId>(id));
    return t.kind == engine::TaskKind::transfer && !t.flows.empty();
  };
  auto label_of = [&plan](std::size_t id) -> const std::string& {
    static const std::string none;
    return id < plan.info.size() ? plan.info[id].label : none;
  };
  for (std::size_t id = 0; id < plan.graph.size(); ++id) {
    if (!is_transfer(id))
      continue;
    // The parts of one communication (added one after another under its label) run side by side:
    // their flows meet on the same switches.
    std::size_t stop = id + 1;
    while (stop < plan.graph.size() && is_transfer(stop) && label_of(stop) == label_of(id))
      ++stop;
    load.clear();
    for (std::size_t part = id; part < stop; ++part)
      for (const auto& f : plan.graph.task(static_cast<engine::TaskId>(part)).flows) {
        if (hosts.kind_of(f.src) != platform::HostMap::HostKind::gpu ||
            hosts.kind_of(f.dst) != platform::HostMap::HostKind::gpu)
          continue;
        const auto& r = routes.route_hosts(f.src, f.dst);
        if (r.kind != platform::HopKind::network)
          continue;
        const double share = f.bytes / r.spread;
        for (auto l : r.links)
          if (l < topo.num_edges())
            load[l] += share;
      }
    const std::size_t first = id;
    id = stop - 1;
    // Per link its time per byte of capacity; per switch and direction the balanced bound.
    double busiest = 0;
    double balanced = 0;
    std::map<std::pair<topology::VertexId, bool>, std::pair<double, double>> groups; // -> (bytes, capacity)
    for (const auto& [l, bytes] : load) {
      const auto& e = topo.edge(l);
      const double cap = e.bandwidth.si();
      const double time = bytes / cap;
      if (e.kind == topology::LinkKind::nic_port) {
        balanced = std::max(balanced, time);
        continue;
      }
      const auto a = topo.edge_source(l);
      const auto b = topo.edge_target(l);
      const int ta = tier(g[a].kind);
      const int tb = tier(g[b].kind);
      if (ta == 0 || tb == 0)
        continue;
      busiest = std::max(busiest, time);
      const bool up = tb > ta;
      groups[{up ? a : b, up}].first += bytes;
    }
    if (busiest <= 0)
      continue;
    // Capacity of each group: every equal link of that switch in that direction, used or not.
    for (auto& [key, grp] : groups) {
      const auto [v, up] = key;
      double cap = 0;
      if (up) {
        for (auto [e, end] = boost::out_edges(v, g); e != end; ++e)
          if (tier(g[boost::target(*e, g)].kind) > tier(g[v].kind))
            cap += g[*e].bandwidth.si();
      } else {
        for (auto [e, end] = boost::in_edges(v, g); e != end; ++e)
          if (tier(g[boost::source(*e, g)].kind) > tier(g[v].kind))
            cap += g[*e].bandwidth.si();
      }
      if (cap > 0)
        balanced = std::max(balanced, grp.first / cap);
    }
    const double ratio = balanced > 0 ? busiest / balanced : 1.0;
    if (ratio > worst.ratio) {
      worst.ratio = ratio;
      worst.label = label_of(first);
    }
  }
  return worst;
}

} // namespace dpusim::plan
