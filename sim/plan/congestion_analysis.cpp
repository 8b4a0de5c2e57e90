#include "sim/plan/congestion_analysis.hpp"

#include "models/congestion/max_min.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace dpusim::plan {

namespace {

/// Stretches up to this are left out (a numerical tolerance: they change the step by less than it, and
/// simulating them would cost a second run of the iteration).
constexpr double kSlowed = 1e-3;

/// One connection's share of a flow: the queues it crosses, its rate, its one-way latency.
struct Path {
  std::vector<std::int32_t> links; // queues: topology edge x 2 + traffic class (see queue_of)
  double rate = 0;                 // bytes per second in the uncongested run
  double latency = 0;
  double offered = 0; // what its sender pushes: its share of the links before any switch queue
  /// Per queue of `links`: the rate it arrives there at, what the ports before it deliver of `offered`.
  std::vector<double> arriving;
  std::size_t transfer = 0; // index into the analysed transfers
  std::size_t flow = 0;     // index into its task's flows
};

/// A port's queue of one traffic class (PFC pauses a priority, not the port): edge x 2 + class.
std::int32_t queue_of(std::int32_t edge, int traffic_class) {
  return edge * 2 + traffic_class;
}
std::int32_t edge_of(std::int32_t queue) {
  return queue / 2;
}

struct LinkUse {
  double load = 0;               // bytes per second
  std::vector<int> paths;        // indexes into the paths, one entry per crossing
  std::vector<std::size_t> hops; // where on each of those paths this queue is
  [[nodiscard]] double arriving(const std::vector<Path>& all) const {
    double a = 0;
    for (std::size_t i = 0; i < paths.size(); ++i)
      a += all[static_cast<std::size_t>(paths[i])].arriving[hops[i]];
    return a;
  }
  /// Each crossing's max-min share of `capacity` with the rates it arrives at as demands.
  void shares(const std::vector<Path>& all, double capacity, std::vector<double>& out) const {
    std::vector<double> demand;
    demand.reserve(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i)
      demand.push_back(all[static_cast<std::size_t>(paths[i])].arriving[hops[i]]);
    congestion::max_min_share(capacity, demand, out);
  }
};

using Uses = std::map<std::int32_t, LinkUse>; // by queue, in a fixed order

/// The rates each path arrives at each of its queues with: its sender's offer, then at each switch egress
/// port its max-min share of the port's capacity among what arrives there (a port delivers no more than
/// it carries; without rate control a path is held back only where a port upstream of it is full). Routes
/// go up the tiers and down again, so the ports depend on each other without a cycle and the sweep ends
/// after as many rounds as the longest route has ports.
void settle_arrivals(std::vector<Path>& paths, const Uses& use, const std::map<std::int32_t, double>& cap,
                     const std::function<bool(std::int32_t)>& egress) {
  for (auto& p : paths)
    p.arriving.assign(p.links.size(), p.offered);
  std::vector<double> share;
  for (int round = 0; round < 64; ++round) {
    bool changed = false;
    for (const auto& [q, u] : use) {
      if (!egress(q))
        continue;
      u.shares(paths, cap.at(q), share);
      for (std::size_t i = 0; i < u.paths.size(); ++i) {
        auto& p = paths[static_cast<std::size_t>(u.paths[i])];
        // Everything after this port, up to the next switch port, carries what this port delivers.
        for (std::size_t h = u.hops[i] + 1; h < p.links.size(); ++h) {
          if (std::abs(p.arriving[h] - share[i]) > 1e-12 * p.offered) {
            p.arriving[h] = share[i];
            changed = true;
          }
          if (egress(p.links[h]))
            break;
        }
      }
    }
    if (!changed)
      break;
  }
}

} // namespace

CongestionAnalysis::CongestionAnalysis(const catalog::CongestionSpec& spec, platform::RouteRegistry& routes,
                                       std::function<double(std::int32_t)> capacity)
    : spec_(spec), routes_(routes), capacity_(std::move(capacity)) {}

bool CongestionAnalysis::is_switch(topology::VertexId v) const {
  const auto k = routes_.hosts().topology().vertex(v).kind;
  return k == topology::VertexKind::leaf || k == topology::VertexKind::spine ||
         k == topology::VertexKind::core;
}

/// A rate to two significant digits: steady states that differ below that are taken as one.
double two_digits(double x) {
  if (!(x > 0))
    return 0;
  const double scale = std::pow(10.0, std::floor(std::log10(x)) - 1);
  return std::round(x / scale) * scale;
}

const CongestionAnalysis::Dcqcn& CongestionAnalysis::dcqcn_at(double capacity, int flows, double offered,
                                                              double feedback_delay) {
  offered = two_digits(offered);
  feedback_delay = std::max(0.5e-6, std::round(feedback_delay / 0.5e-6) * 0.5e-6);
  const auto key = std::make_tuple(std::llround(capacity), flows, std::llround(offered),
                                   std::llround(feedback_delay * 1e8));
  if (auto it = dcqcn_cache_.find(key); it != dcqcn_cache_.end())
    return it->second;
  const auto rate = units::DataRate::from_si(capacity);
  const auto params = catalog::dcqcn_params(spec_, rate);
  const auto port = catalog::pfc_ingress_port(spec_, rate);
  congestion::Bottleneck b{rate, units::Seconds::from_si(feedback_delay), port.pause};
  const congestion::FlowGroup group{flows, units::DataRate::from_si(offered),
                                    units::DataRate::from_si(offered)};
  // Long enough for alpha's average (gain g per alpha interval) to settle eight times over, the second
  // half averaged.
  const double settle = std::clamp(8 * params.alpha_interval.si() / params.g, 5e-3, 0.2);
  congestion::IntegrationOptions o;
  o.duration = units::Seconds::from_si(settle);
  o.average_from = units::Seconds::from_si(settle / 2);
  const auto st = congestion::integrate(params, b, {group}, o);
  Dcqcn d{std::min(1.0, st.utilisation), st.pause_fraction, st.marking, st.queue.si()};
  return dcqcn_cache_.emplace(key, d).first->second;
}

std::vector<double> CongestionAnalysis::factors(const std::vector<ActiveTransfer>& together) {
  std::vector<double> out;
  for (const auto& flows : flow_factors(together))
    out.push_back(flows.empty() ? 1.0 : *std::max_element(flows.begin(), flows.end()));
  return out;
}

std::vector<std::vector<double>>
CongestionAnalysis::flow_factors(const std::vector<ActiveTransfer>& together) {
  std::vector<std::vector<double>> out(together.size());
  for (std::size_t k = 0; k < together.size(); ++k)
    out[k].assign(together[k].task->flows.size(), 1.0);
  const auto& topo = routes_.hosts().topology();
  std::vector<Path> paths;
  for (std::size_t k = 0; k < together.size(); ++k) {
    const auto& t = *together[k].task;
    // Transfers of no RoCE class (kernel TCP: lossy) are left out; background flows (other tenants'
    // traffic) load the ports all along.
    const bool background = t.kind == engine::TaskKind::background;
    if ((t.kind != engine::TaskKind::transfer && !background) || t.flows.empty() ||
        together[k].traffic_class < 0 || !(together[k].duration > 0))
      continue;
    for (std::size_t fi = 0; fi < t.flows.size(); ++fi) {
      const auto& f = t.flows[fi];
      if (f.bytes <= 0)
        continue;
      const auto& r = routes_.route_hosts(f.src, f.dst);
      if (r.kind != platform::HopKind::network)
        continue;
      const int spread = std::max(1, r.spread);
      const std::size_t per_path = r.links.size() / static_cast<std::size_t>(spread);
      for (int c = 0; c < spread; ++c) {
        Path p;
        // Its rate in the uncongested run (a background flow's: what it moved while the graph ran).
        p.rate = f.bytes * together[k].done / spread / together[k].duration;
        p.latency = r.latency_s;
        p.transfer = k;
        p.flow = fi;
        for (std::size_t i = 0; i < per_path; ++i) {
          const auto e = r.links[static_cast<std::size_t>(c) * per_path + i];
          if (e < topo.num_edges())
            p.links.push_back(queue_of(e, together[k].traffic_class));
        }
        paths.push_back(std::move(p));
      }
    }
  }
  if (paths.empty())
    return out;
  Uses use;                                 // by queue; load: bytes per second
  std::map<std::int32_t, double> link_load; // by edge, every class
  for (std::size_t j = 0; j < paths.size(); ++j)
    for (std::size_t h = 0; h < paths[j].links.size(); ++h) {
      const auto q = paths[j].links[h];
      auto& u = use[q];
      u.load += paths[j].rate;
      u.paths.push_back(static_cast<int>(j));
      u.hops.push_back(h);
      link_load[edge_of(q)] += paths[j].rate;
    }
  std::map<std::int32_t, double> link_cap; // by edge
  for (const auto& [e, load] : link_load)
    link_cap[e] = capacity_(e);
  // A class's queue has what the other class left of the port in the uncongested run, and at least an
  // equal share of it (the port's scheduler serves backlogged classes with equal weights).
  std::map<std::int32_t, int> classes; // by edge
  for (const auto& [q, u] : use)
    ++classes[edge_of(q)];
  std::map<std::int32_t, double> cap;
  for (const auto& [q, u] : use) {
    const auto e = edge_of(q);
    cap[q] = std::max(link_cap[e] / classes[e], link_cap[e] - (link_load[e] - u.load));
  }
  // What each sender pushes before any switch queue holds it back (no end-to-end control: PFC alone),
  // and DCQCN's flows' line rate: without feedback from beyond its first switch a sender shares the links
  // up to it equally among its connections, whatever holds them back further on.
  std::map<std::int32_t, int> link_paths; // by edge, every class
  for (const auto& [q, u] : use)
    link_paths[edge_of(q)] += static_cast<int>(u.paths.size());
  const std::function<bool(std::int32_t)> egress = [&](std::int32_t q) {
    return is_switch(topo.edge_source(edge_of(q)));
  };
  for (auto& p : paths) {
    p.offered = std::numeric_limits<double>::infinity();
    for (const auto q : p.links) {
      if (egress(q))
        break; // the first switch queue: from here on PFC holds the sender back
      const auto e = edge_of(q);
      p.offered = std::min(p.offered, link_cap[e] / link_paths[e]);
    }
    if (!std::isfinite(p.offered))
      p.offered = p.rate;
  }
  settle_arrivals(paths, use, cap, egress);
  // The mean time the transfers on a port last: how long a burst its buffer must absorb.
  auto burst = [&](const LinkUse& u) {
    double weighted = 0;
    double total = 0;
    for (const int j : u.paths) {
      const auto& p = paths[static_cast<std::size_t>(j)];
      weighted += p.rate * together[p.transfer].duration;
      total += p.rate;
    }
    return total > 0 ? weighted / total : 0.0;
  };
  // Switch egress ports the senders overload, from the senders' side up (congestion spreads upstream:
  // a paused port is an egress of the switch before it, at the capacity the pauses leave it).
  std::map<std::int32_t, double> left = cap; // capacity left after rate control and pauses
  std::map<std::int32_t, double> paused;     // pause fraction of an ingress port's sender
  std::map<std::int32_t, bool> limits;       // queues whose paths get only their share of what is left
  std::vector<std::int32_t> work;
  for (const auto& [q, u] : use)
    if (egress(q))
      work.push_back(q);
  const bool rate_control = spec_.rate_control.value;
  // A fabric link may stand for several ports (parallel links, or a pooled tier under adaptive routing):
  // PFC's thresholds and DCQCN's queue are per port of the fabric's link speed.
  const auto ports_of = [&](std::int32_t q) {
    const auto e = edge_of(q);
    const auto& edge = topo.edge(e);
    const double port_rate =
        edge.kind == topology::LinkKind::fabric ? topo.layout().fabric.link.si() : link_cap[e];
    return std::max(1.0, std::round(link_cap[e] / std::max(port_rate, 1.0)));
  };
  const auto xoff = [&](std::int32_t q) {
    const double ports = ports_of(q);
    return ports * catalog::pfc_ingress_port(spec_, units::DataRate::from_si(link_cap[edge_of(q)] / ports))
                       .pause.xoff.si();
  };
  std::vector<double> share;
  for (int round = 0; round < 8 && !work.empty(); ++round) {
    std::vector<std::int32_t> next;
    for (const auto e : work) {
      const auto& u = use[e];
      const double offered = u.arriving(paths);
      if (!(offered > left[e] * (1 + 1e-9)))
        continue;
      double rtt = 0;
      for (const int j : u.paths)
        rtt = std::max(rtt, 2 * paths[static_cast<std::size_t>(j)].latency);
      auto& rec = summary_.ports[edge_of(e)];
      rec.link = edge_of(e);
      const bool dcqcn = rate_control && round == 0;
      double dcqcn_pause = 0;
      if (dcqcn) {
        // DCQCN holds the senders near the port's rate; what it leaves, and whether its queue still
        // reaches XOFF, come from its fluid model at this port.
        const double ports = ports_of(e);
        const int n = static_cast<int>(u.paths.size());
        const int per_port = std::max(1, static_cast<int>(std::lround(n / ports)));
        const auto& d = dcqcn_at(link_cap[edge_of(e)] / ports, per_port, offered / n, rtt);
        left[e] = std::min(left[e], d.utilisation * cap[e]);
        rec.marking = std::max(rec.marking, d.marking);
        rec.utilisation = std::min(rec.utilisation, d.utilisation);
        rec.queue_bytes = std::max(rec.queue_bytes, d.queue);
        dcqcn_pause = d.pause_fraction;
      }
      // The port serves what arrives max-min fairly; each ingress port feeding it (the link before it on
      // each path) holds what it brings beyond its flows' shares, and pauses its sender for that part.
      u.shares(paths, left[e], share);
      std::map<std::int32_t, std::pair<double, double>> into; // ingress -> (arriving, served) towards e
      for (std::size_t i = 0; i < u.paths.size(); ++i) {
        const auto& p = paths[static_cast<std::size_t>(u.paths[i])];
        if (u.hops[i] == 0)
          continue;
        auto& [arriving, served] = into[p.links[u.hops[i] - 1]];
        arriving += p.arriving[u.hops[i]];
        served += share[i];
      }
      const double lasts = burst(u);
      for (const auto& [in, flow] : into) {
        const auto [arriving, served] = flow;
        const double pause = dcqcn ? dcqcn_pause : 1.0 - served / std::max(arriving, 1e-300);
        if (!(pause > 1e-12))
          continue;
        // Without rate control the buffer absorbs the start: the pauses begin once the port's queue for
        // this egress has filled to XOFF.
        double f = pause;
        if (!dcqcn) {
          const double fill = arriving * pause; // bytes per second the port's queue grows by
          const double until = xoff(in) / fill;
          f = pause * std::max(0.0, 1.0 - until / std::max(lasts, 1e-12));
        }
        if (f <= paused[in])
          continue;
        paused[in] = f;
        limits[e] = true;
        limits[in] = true;
        // While not paused its sender pushes what arrives at it; paused, nothing of that class passes.
        left[in] = std::min(left[in], (1.0 - f) * std::min(use[in].arriving(paths), cap[in]));
        auto& r = summary_.ports[edge_of(in)];
        r.link = edge_of(in);
        r.pause_fraction = std::max(r.pause_fraction, f);
        if (egress(in))
          next.push_back(in);
      }
    }
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    work = std::move(next);
  }
  // Each path moves at the least it gets where it is held back: its max-min share of what a pausing or
  // paused queue has left (head-of-line blocking: a victim bound elsewhere stops with the flows beside
  // it), or, where DCQCN's rate control left a port less, the port's flows in proportion. Against the
  // rate the uncongested run gave it, and what that run already overcommitted its links (transfers that
  // overlap only in part each had a link for a while, so their average rates may add up to more than it
  // carries).
  std::vector<double> allowed(paths.size(), std::numeric_limits<double>::infinity());
  std::vector<double> overcommit(paths.size(), 1.0);
  std::vector<double> proportional(paths.size(), 1.0); // the largest stretch of DCQCN's ports
  for (const auto& [q, u] : use) {
    const bool paused_here = limits.count(q) > 0;
    if (paused_here)
      u.shares(paths, left[q], share);
    const double scaled = std::max(1.0, u.load / left[q]) / std::max(1.0, u.load / cap[q]);
    for (std::size_t i = 0; i < u.paths.size(); ++i) {
      const auto j = static_cast<std::size_t>(u.paths[i]);
      overcommit[j] = std::max(overcommit[j], u.load / cap[q]);
      if (paused_here)
        allowed[j] = std::min(allowed[j], share[i]);
      else
        proportional[j] = std::max(proportional[j], scaled);
    }
  }
  for (std::size_t j = 0; j < paths.size(); ++j) {
    double k = proportional[j];
    if (std::isfinite(allowed[j]))
      k = std::max(k, paths[j].rate / std::max(allowed[j], 1e-300) / overcommit[j]);
    auto& f = out[paths[j].transfer][paths[j].flow];
    f = std::max(f, k);
  }
  return out;
}

int CongestionAnalysis::default_class(const engine::Task& t) {
  return t.loads.empty() || t.kind == engine::TaskKind::background ? 0 : -1;
}

bool CongestionAnalysis::apply(engine::TaskGraph& graph, const std::vector<engine::TaskTiming>& timings,
                               const std::function<std::string(engine::TaskId)>& labels,
                               const std::function<int(engine::TaskId)>& traffic_class) {
  bool changed = false;
  const auto class_of = [&](engine::TaskId id) {
    return traffic_class ? traffic_class(id) : default_class(graph.task(id));
  };
  // RoCE transfers over the fabric, by start time; each is analysed with those running at its midpoint.
  std::vector<engine::TaskId> transfers;
  for (std::size_t id = 0; id < graph.size() && id < timings.size(); ++id) {
    const auto& t = graph.task(static_cast<engine::TaskId>(id));
    if (t.kind != engine::TaskKind::transfer || t.flows.empty() ||
        class_of(static_cast<engine::TaskId>(id)) < 0 || !(timings[id].end > timings[id].start))
      continue;
    const bool network = std::any_of(t.flows.begin(), t.flows.end(), [&](const engine::Flow& f) {
      return routes_.route_hosts(f.src, f.dst).kind == platform::HopKind::network;
    });
    if (network)
      transfers.push_back(static_cast<engine::TaskId>(id));
  }
  summary_.transfers += static_cast<int>(transfers.size());
  std::sort(transfers.begin(), transfers.end(), [&](engine::TaskId a, engine::TaskId b) {
    return timings[static_cast<std::size_t>(a)].start < timings[static_cast<std::size_t>(b)].start;
  });
  // Other tenants' background flows run alongside every transfer.
  std::vector<ActiveTransfer> background;
  for (std::size_t id = 0; id < graph.size() && id < timings.size(); ++id) {
    const auto& t = graph.task(static_cast<engine::TaskId>(id));
    if (t.kind == engine::TaskKind::background && !t.flows.empty() && timings[id].end > timings[id].start &&
        class_of(static_cast<engine::TaskId>(id)) >= 0)
      background.push_back({&t,
                            timings[id].end - timings[id].start,
                            {},
                            timings[id].done,
                            class_of(static_cast<engine::TaskId>(id))});
  }
  std::map<engine::TaskId, std::vector<double>> factor; // per transfer, its flows' stretches
  std::map<std::vector<engine::TaskId>, bool> seen;     // each distinct set of concurrent transfers once
  for (const auto id : transfers) {
    const auto& ti = timings[static_cast<std::size_t>(id)];
    const double mid = 0.5 * (ti.start + ti.end);
    std::vector<engine::TaskId> set;
    for (const auto other : transfers) {
      const auto& to = timings[static_cast<std::size_t>(other)];
      if (to.start > mid)
        break;
      if (to.end > mid)
        set.push_back(other);
    }
    if (!seen.emplace(set, true).second)
      continue;
    std::vector<ActiveTransfer> together;
    for (const auto other : set) {
      const auto& to = timings[static_cast<std::size_t>(other)];
      together.push_back({&graph.task(other), to.end - to.start, labels ? labels(other) : std::string(), 1.0,
                          class_of(other)});
    }
    together.insert(together.end(), background.begin(), background.end());
    const auto k = flow_factors(together);
    for (std::size_t i = 0; i < set.size(); ++i) {
      auto& f = factor[set[i]];
      f.resize(k[i].size(), 1.0);
      for (std::size_t j = 0; j < k[i].size(); ++j)
        f[j] = std::max(f[j], k[i][j]);
    }
  }
  // Each flow by its own stretch: a flow that shares a paused port slows, the others of its transfer
  // keep their rate.
  for (const auto id : transfers) {
    const auto& k = factor[id];
    const double worst = k.empty() ? 1.0 : *std::max_element(k.begin(), k.end());
    if (!(worst > 1 + kSlowed))
      continue;
    ++summary_.slowed;
    changed = true;
    if (worst > summary_.worst_factor) {
      summary_.worst_factor = worst;
      summary_.worst_label = labels ? labels(id) : std::string();
    }
    auto& flows = graph.mutable_task(id).flows;
    for (std::size_t j = 0; j < flows.size() && j < k.size(); ++j)
      if (k[j] > 1 + kSlowed)
        flows[j].bytes *= k[j];
  }
  return changed;
}

} // namespace dpusim::plan
