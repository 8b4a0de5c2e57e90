#include "sim/report/link_usage.hpp"

#include "sim/topology/topology.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <utility>

namespace dpusim::report {
namespace {

using EdgeBytes = std::map<std::int32_t, double>;

/// Bytes each topology edge carries of a transfer's flows (each route's `spread` paths carrying an equal
/// share, a link listed twice carrying it twice), with the flows' GPU ends moved `offset` GPUs on. False
/// when a moved end is not a GPU of the platform (nothing is booked then).
bool task_bytes(const engine::Task& t, int offset, platform::RouteRegistry& routes, EdgeBytes& out) {
  const auto& hosts = routes.hosts();
  const int edges = hosts.topology().num_edges();
  const auto moved = [&](engine::HostIndex h, engine::HostIndex& to) {
    to = h + offset;
    return offset == 0 ||
           (hosts.kind_of(h) == platform::HostMap::HostKind::gpu && to >= 0 && to < hosts.gpus());
  };
  EdgeBytes bytes;
  for (const auto& f : t.flows) {
    engine::HostIndex src = 0;
    engine::HostIndex dst = 0;
    if (!moved(f.src, src) || !moved(f.dst, dst))
      return false;
    if (src == dst || !(f.bytes > 0))
      continue;
    const auto& r = routes.route_hosts(src, dst);
    const double share = f.bytes / std::max(1, r.spread);
    for (const auto e : r.links)
      if (e < edges)
        bytes[e] += share;
  }
  for (const auto& [e, b] : bytes)
    out[e] += b;
  return true;
}

/// Task `i` of `timed` with its bytes from `payload` where that holds the same transfer.
const engine::Task& with_payload(const engine::TaskGraph& timed, const engine::TaskGraph* payload,
                                 std::size_t i) {
  const auto id = static_cast<engine::TaskId>(i);
  const auto& t = timed.task(id);
  if (payload == nullptr || i >= payload->size())
    return t;
  const auto& p = payload->task(id);
  return p.kind == t.kind && p.flows.size() == t.flows.size() ? p : t;
}

struct Booked {
  double bytes = 0;
  double peak = 0;
};

class Booking {
public:
  Booking(platform::RouteRegistry& routes, std::function<double(std::int32_t)> capacity)
      : routes_(routes), capacity_(std::move(capacity)) {}

  /// Every transfer task of `g` (bytes from `payload`), `times` times, on GPUs `offset` on from its own.
  void graph(const engine::TaskGraph& g, const engine::TaskGraph* payload,
             const std::vector<engine::TaskTiming>& timings, double times, int offset) {
    for (std::size_t i = 0; i < g.size() && i < timings.size(); ++i)
      task(with_payload(g, payload, i), timings[i], times, offset);
  }

  [[nodiscard]] const std::map<std::int32_t, Booked>& links() const { return links_; }
  [[nodiscard]] double capacity(std::int32_t e) const { return capacity_(e); }

private:
  void task(const engine::Task& t, const engine::TaskTiming& timing, double times, int offset) {
    if (t.kind != engine::TaskKind::transfer || t.flows.empty())
      return;
    EdgeBytes here;
    if (!task_bytes(t, offset, routes_, here))
      return;
    const double duration = timing.end - timing.start;
    for (const auto& [e, b] : here) {
      auto& l = links_[e];
      l.bytes += b * times;
      if (const double cap = capacity_(e); duration > 0 && cap > 0)
        l.peak = std::max(l.peak, b / (cap * duration));
    }
  }

  platform::RouteRegistry& routes_;
  std::function<double(std::int32_t)> capacity_;
  std::map<std::int32_t, Booked> links_;
};

std::string tier_of(const topology::Topology& topo, std::int32_t e) {
  const auto& a = topo.vertex(topo.edge_source(e));
  const auto& b = topo.vertex(topo.edge_target(e));
  if (a.node >= 0 && b.node >= 0)
    return "intra-node";
  return fmt::format("{}-{}", topology::vertex_kind_name(a.kind), topology::vertex_kind_name(b.kind));
}

std::string num(double v) {
  return fmt::format("{:.9g}", v);
}

} // namespace

std::vector<LinkUsage> link_usage(const LinkInputs& in, platform::RouteRegistry& routes) {
  const auto& topo = routes.hosts().topology();
  std::function<double(std::int32_t)> capacity = in.capacity;
  if (!capacity)
    capacity = [&topo](std::int32_t e) { return topo.edge(e).bandwidth.si(); };
  Booking booking(routes, capacity);
  booking.graph(in.plan->graph, in.payload, *in.timings, 1.0, 0);
  // The probes stand for collectives fused into compute tasks. A tensor-parallel probe is the
  // all-reduce of ranks 0..tp-1 (replica 0, stage 0, context rank 0): a task of replica d, stage s runs
  // its count of them on each of its cp tensor-parallel groups, whose ranks lie the same distances
  // from the task's first. A context-parallel probe is the group of tensor rank 0: each tensor rank of
  // the task runs its count. The expert-parallel probe holds every group of stage 0 at once: each stage
  // runs it as often as one replica's task of that stage reuses it (the other replicas' tasks take part
  // in the same all-to-alls).
  const auto& p = in.parallelism;
  std::map<std::pair<int, int>, double> reuses; // (probe: 0 tp, 1 ep, 2 cp; GPU offset) -> times
  for (const auto& ti : in.plan->info) {
    if (ti.category != plan::TaskCategory::forward && ti.category != plan::TaskCategory::backward &&
        ti.category != plan::TaskCategory::optimizer)
      continue;
    const int first = ti.gpus.empty() ? 0 : ti.gpus.front();
    if (ti.tp_collectives > 0 && ti.gpus.size() > 1)
      for (int c = 0; c < std::max(1, p.cp); ++c)
        reuses[{0, first + p.tp * c}] += ti.tp_collectives;
    if (ti.ep_collectives > 0 && ti.dp == 0)
      reuses[{1, first}] += ti.ep_collectives;
    if (ti.cp_collectives > 0)
      for (int t = 0; t < std::max(1, p.tp); ++t)
        reuses[{2, first + t}] += ti.cp_collectives;
  }
  const std::array<const engine::TaskGraph*, 3> probes{in.probes.tp, in.probes.ep, in.probes.cp};
  for (const auto& [key, times] : reuses)
    if (const auto* g = probes[static_cast<std::size_t>(key.first)]; g != nullptr && g->size() > 0)
      booking.graph(*g, nullptr, in.probes.timings[static_cast<std::size_t>(key.first)], times, key.second);

  std::vector<LinkUsage> rows;
  const auto& g = topo.graph();
  for (const auto& [e, b] : booking.links()) {
    LinkUsage u;
    u.edge = e;
    u.link = fmt::format("{}->{}", g[topo.edge_source(e)].name, g[topo.edge_target(e)].name);
    u.kind = std::string(topology::link_kind_name(topo.edge(e).kind));
    u.tier = tier_of(topo, e);
    u.capacity_bps = booking.capacity(e);
    u.bytes = b.bytes;
    u.mean_utilisation = in.step_s > 0 && u.capacity_bps > 0 ? b.bytes / (u.capacity_bps * in.step_s) : 0;
    u.peak_utilisation = b.peak;
    if (in.congestion != nullptr)
      if (const auto it = in.congestion->ports.find(e); it != in.congestion->ports.end())
        u.congestion = it->second;
    rows.push_back(std::move(u));
  }
  std::sort(rows.begin(), rows.end(), [](const LinkUsage& a, const LinkUsage& b) {
    return a.mean_utilisation != b.mean_utilisation ? a.mean_utilisation > b.mean_utilisation
                                                    : a.link < b.link;
  });
  return rows;
}

std::string render_links_csv(const std::vector<LinkUsage>& rows, bool congestion) {
  std::string out = "link,kind,tier,capacity_gbps,bytes,mean_utilisation,peak_utilisation";
  if (congestion)
    out += ",pause_fraction,ecn_marked,dcqcn_utilisation,queue_kb";
  out += "\n";
  for (const auto& r : rows) {
    out += fmt::format("{},{},{},{},{},{},{}", r.link, r.kind, r.tier, num(r.capacity_bps * 8 / 1e9),
                       num(r.bytes), num(r.mean_utilisation), num(r.peak_utilisation));
    if (congestion) {
      if (r.congestion)
        out += fmt::format(",{},{},{},{}", num(r.congestion->pause_fraction), num(r.congestion->marking),
                           num(r.congestion->utilisation), num(r.congestion->queue_bytes / 1e3));
      else
        out += ",,,,";
    }
    out += "\n";
  }
  return out;
}

std::vector<LinkLoad> fabric_loads(const std::vector<LinkUsage>& rows, const LinkInputs& in,
                                   platform::RouteRegistry& routes, std::size_t limit) {
  const auto& graph = in.plan->graph;
  const auto& timings = *in.timings;
  std::vector<LinkLoad> out;
  std::map<std::int32_t, std::size_t> index; // edge -> position in out
  std::map<std::int32_t, double> capacity;
  for (const auto& r : rows) {
    if (out.size() >= limit)
      break;
    if (r.kind != "nic_port" && r.kind != "fabric")
      continue;
    index[r.edge] = out.size();
    capacity[r.edge] = r.capacity_bps;
    out.push_back({r.link, {}});
  }
  if (out.empty())
    return out;
  for (std::size_t i = 0; i < graph.size() && i < timings.size(); ++i) {
    const auto& t = with_payload(graph, in.payload, i);
    const auto& timing = timings[i];
    if (t.kind != engine::TaskKind::transfer || t.flows.empty() || !(timing.end > timing.start))
      continue;
    EdgeBytes here;
    (void)task_bytes(t, 0, routes, here);
    for (const auto& [e, b] : here)
      if (const auto it = index.find(e); it != index.end() && capacity[e] > 0)
        out[it->second].intervals.push_back(
            {timing.start, timing.end, b / (capacity[e] * (timing.end - timing.start))});
  }
  return out;
}

std::vector<HotLink> hot_links(const std::vector<LinkUsage>& rows) {
  std::vector<const LinkUsage*> fabric;
  for (const auto& r : rows)
    if (r.kind == "nic_port" || r.kind == "fabric")
      fabric.push_back(&r);
  std::vector<const LinkUsage*> chosen(
      fabric.begin(),
      fabric.begin() + std::min<std::ptrdiff_t>(8, static_cast<std::ptrdiff_t>(fabric.size())));
  std::vector<const LinkUsage*> paused;
  for (const auto* r : fabric)
    if (r->congestion && r->congestion->pause_fraction > 0 &&
        std::find(chosen.begin(), chosen.end(), r) == chosen.end())
      paused.push_back(r);
  std::stable_sort(paused.begin(), paused.end(), [](const LinkUsage* a, const LinkUsage* b) {
    return a->congestion->pause_fraction > b->congestion->pause_fraction;
  });
  for (std::size_t i = 0; i < paused.size() && i < 4; ++i)
    chosen.push_back(paused[i]);
  std::vector<HotLink> out;
  for (const auto* r : chosen)
    out.push_back({r->link, r->tier, r->mean_utilisation, r->peak_utilisation,
                   r->congestion ? r->congestion->pause_fraction : 0.0,
                   r->congestion ? r->congestion->marking : 0.0});
  return out;
}

} // namespace dpusim::report
