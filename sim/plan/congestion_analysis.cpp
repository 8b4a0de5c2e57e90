#include "sim/plan/congestion_analysis.hpp"

#include "models/congestion/max_min.hpp"
#include "sim/topology/topology.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>
#include <utility>

namespace dpusim::plan {

namespace {

/// Stretches up to this are left out (a numerical tolerance: they change the step by less than it, and
/// simulating them would cost a second run of the iteration).
constexpr double kSlowed = 1e-3;

/// One connection's share of a flow: the queues it crosses, its rate, its one-way latency.
struct Path {
  std::vector<int> queues; // indexes into the analysis's queues, in the order it crosses them
  double rate = 0;         // bytes per second in the uncongested run
  double latency = 0;
  double offered = 0; // what its sender pushes: its share of the links before any switch queue
  /// Per queue: the rate it arrives there at, what the ports before it deliver of `offered`.
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

/// One queue and the paths crossing it.
struct Queue {
  std::int32_t id = 0;           // queue_of(edge, class)
  bool egress = false;           // it leaves a switch (else it is on a sender's side)
  double link_cap = 0;           // its link's rate, every class
  double cap = 0;                // what its class has of the link
  double left = 0;               // what rate control and pauses leave of `cap`
  double paused = 0;             // the share of time its sender is paused (as an ingress port)
  bool limits = false;           // its paths get only their share of what is left
  double load = 0;               // bytes per second in the uncongested run
  std::vector<int> paths;        // indexes into the paths, one entry per crossing
  std::vector<std::size_t> hops; // where on each of those paths this queue is
  [[nodiscard]] double arriving(const std::vector<Path>& all) const {
    double a = 0;
    for (std::size_t i = 0; i < paths.size(); ++i)
      a += all[static_cast<std::size_t>(paths[i])].arriving[hops[i]];
    return a;
  }
  /// Each crossing's max-min share of `capacity` with the rates it arrives at as demands.
  void shares(const std::vector<Path>& all, double capacity, std::vector<double>& demand,
              std::vector<double>& out) const {
    demand.clear();
    for (std::size_t i = 0; i < paths.size(); ++i)
      demand.push_back(all[static_cast<std::size_t>(paths[i])].arriving[hops[i]]);
    congestion::max_min_share(capacity, demand, out);
  }
};

/// The rates each path arrives at each of its queues with: its sender's offer, then at each switch egress
/// port its max-min share of the port's capacity among what arrives there (a port delivers no more than
/// it carries; without rate control a path is held back only where a port upstream of it is full). Routes
/// go up the tiers and down again, so the ports depend on each other without a cycle and the sweep ends
/// after as many rounds as the longest route has ports.
void settle_arrivals(std::vector<Path>& paths, const std::vector<Queue>& queues) {
  for (auto& p : paths)
    p.arriving.assign(p.queues.size(), p.offered);
  std::vector<double> demand, share;
  for (int round = 0; round < 64; ++round) {
    bool changed = false;
    for (const auto& q : queues) {
      if (!q.egress)
        continue;
      q.shares(paths, q.cap, demand, share);
      for (std::size_t i = 0; i < q.paths.size(); ++i) {
        auto& p = paths[static_cast<std::size_t>(q.paths[i])];
        // Everything after this port, up to the next switch port, carries what this port delivers.
        for (std::size_t h = q.hops[i] + 1; h < p.queues.size(); ++h) {
          if (std::abs(p.arriving[h] - share[i]) > 1e-12 * p.offered) {
            p.arriving[h] = share[i];
            changed = true;
          }
          if (queues[static_cast<std::size_t>(p.queues[h])].egress)
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

namespace {

/// Long enough for DCQCN's alpha average (gain g per alpha interval) to settle eight times over.
double settle_time(const congestion::DcqcnParams& params) {
  return std::clamp(8 * params.alpha_interval.si() / params.g, 5e-3, 0.2);
}

} // namespace

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
  // The steady state, not the start: the flows start at their fair share of the port (or what they
  // offer, if less), where the equilibrium lies. From the line rate the first marks cut every flow far
  // below its share and a preset with rare, small increases (the HPCC simulator's Mellanox-like one: one
  // increase per 300 us) spends the whole window climbing back (a quarter to three quarters of the port
  // in use), a start-up transient the analysis must not take for the steady state (dcqcn_stretch charges
  // it to the transfers it belongs to).
  const congestion::FlowGroup group{flows, units::DataRate::from_si(offered),
                                    units::DataRate::from_si(std::min(offered, capacity / flows))};
  // The second half of the settling time averaged.
  const double settle = settle_time(params);
  congestion::IntegrationOptions o;
  o.duration = units::Seconds::from_si(settle);
  o.average_from = units::Seconds::from_si(settle / 2);
  const auto st = congestion::integrate(params, b, {group}, o);
  Dcqcn d{std::min(1.0, st.utilisation), st.pause_fraction, st.marking, st.queue.si(), params.k_min.si(),
          port.pause.xoff.si()};
  return dcqcn_cache_.emplace(key, d).first->second;
}

double CongestionAnalysis::dcqcn_stretch(double capacity, int flows, double offered, double feedback_delay,
                                         double lasts) {
  const auto& steady = dcqcn_at(capacity, flows, offered, feedback_delay);
  offered = two_digits(offered);
  feedback_delay = std::max(0.5e-6, std::round(feedback_delay / 0.5e-6) * 0.5e-6);
  const auto rate = units::DataRate::from_si(capacity);
  const auto params = catalog::dcqcn_params(spec_, rate);
  // Beyond the settling time the transient is over: it adds the same time to any longer transfer.
  const double window = std::min(two_digits(lasts), settle_time(params));
  const auto key = std::make_tuple(std::llround(capacity), flows, std::llround(offered),
                                   std::llround(feedback_delay * 1e8), std::llround(window * 1e9));
  double extra = 0; // seconds the start adds to serving `window` seconds' worth of the port
  if (auto it = stretch_cache_.find(key); it != stretch_cache_.end()) {
    extra = it->second;
  } else if (window > 0) {
    const auto port = catalog::pfc_ingress_port(spec_, rate);
    congestion::Bottleneck b{rate, units::Seconds::from_si(feedback_delay), port.pause};
    // Every flow starts at the line rate with nothing queued, as a collective's transfer does.
    const congestion::FlowGroup group{flows, units::DataRate::from_si(offered),
                                      units::DataRate::from_si(offered)};
    const double u = std::max(steady.utilisation, 1e-3);
    const double steady_time = window / u;
    congestion::IntegrationOptions o;
    o.duration = units::Seconds::from_si(4 * steady_time);
    o.average_from = units::Seconds::from_si(0);
    o.drain = units::Bytes::from_si(capacity * window);
    const auto st = congestion::integrate(params, b, {group}, o);
    // Not served by the end of the run: the rest at the steady state's rate.
    const double done =
        std::isfinite(st.drained_at.si())
            ? st.drained_at.si()
            : o.duration.si() + (o.drain.si() - st.utilisation * capacity * o.duration.si()) / (u * capacity);
    extra = std::max(0.0, done - steady_time);
    stretch_cache_.emplace(key, extra);
  }
  return 1.0 / std::max(steady.utilisation, 1e-3) + extra / std::max(lasts, 1e-12);
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
  std::vector<std::vector<std::int32_t>> crossed; // per path, its queues' ids
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
        std::vector<std::int32_t> ids;
        for (std::size_t i = 0; i < per_path; ++i) {
          const auto e = r.links[static_cast<std::size_t>(c) * per_path + i];
          if (e < topo.num_edges())
            ids.push_back(queue_of(e, together[k].traffic_class));
        }
        paths.push_back(std::move(p));
        crossed.push_back(std::move(ids));
      }
    }
  }
  if (paths.empty())
    return out;
  // The queues, in the order of their ids (a fixed order for every sweep below).
  std::vector<std::int32_t> ids;
  for (const auto& c : crossed)
    ids.insert(ids.end(), c.begin(), c.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<Queue> queues(ids.size());
  std::unordered_map<std::int32_t, int> index;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    queues[i].id = ids[i];
    queues[i].egress = is_switch(topo.edge_source(edge_of(ids[i])));
    index.emplace(ids[i], static_cast<int>(i));
  }
  std::unordered_map<std::int32_t, double> link_load; // by edge, every class
  std::unordered_map<std::int32_t, int> link_paths;   // by edge, every class
  std::unordered_map<std::int32_t, int> classes;      // by edge
  for (std::size_t j = 0; j < paths.size(); ++j)
    for (std::size_t h = 0; h < crossed[j].size(); ++h) {
      const int qi = index.at(crossed[j][h]);
      auto& q = queues[static_cast<std::size_t>(qi)];
      paths[j].queues.push_back(qi);
      q.load += paths[j].rate;
      q.paths.push_back(static_cast<int>(j));
      q.hops.push_back(h);
      link_load[edge_of(q.id)] += paths[j].rate;
      ++link_paths[edge_of(q.id)];
    }
  for (const auto& q : queues)
    ++classes[edge_of(q.id)];
  // A class's queue has what the other class left of the port in the uncongested run, and at least an
  // equal share of it (the port's scheduler serves backlogged classes with equal weights).
  for (auto& q : queues) {
    const auto e = edge_of(q.id);
    q.link_cap = capacity_(e);
    q.cap = std::max(q.link_cap / classes[e], q.link_cap - (link_load[e] - q.load));
    q.left = q.cap;
  }
  // What each sender pushes before any switch queue holds it back (no end-to-end control: PFC alone),
  // and DCQCN's flows' line rate: without feedback from beyond its first switch a sender shares the links
  // up to it equally among its connections, whatever holds them back further on.
  for (auto& p : paths) {
    p.offered = std::numeric_limits<double>::infinity();
    for (const int qi : p.queues) {
      const auto& q = queues[static_cast<std::size_t>(qi)];
      if (q.egress)
        break; // the first switch queue: from here on PFC holds the sender back
      p.offered = std::min(p.offered, q.link_cap / link_paths[edge_of(q.id)]);
    }
    if (!std::isfinite(p.offered))
      p.offered = p.rate;
  }
  settle_arrivals(paths, queues);
  // The mean time the transfers on a port last: how long a burst its buffer must absorb.
  auto burst = [&](const Queue& q) {
    double weighted = 0;
    double total = 0;
    for (const int j : q.paths) {
      const auto& p = paths[static_cast<std::size_t>(j)];
      weighted += p.rate * together[p.transfer].duration;
      total += p.rate;
    }
    return total > 0 ? weighted / total : 0.0;
  };
  const bool rate_control = spec_.rate_control.value;
  // A fabric link may stand for several ports (parallel links, or a pooled tier under adaptive routing):
  // PFC's thresholds and DCQCN's queue are per port of the fabric's link speed.
  const auto ports_of = [&](const Queue& q) {
    const auto& edge = topo.edge(edge_of(q.id));
    const double port_rate =
        edge.kind == topology::LinkKind::fabric ? topo.layout().fabric.link.si() : q.link_cap;
    return std::max(1.0, std::round(q.link_cap / std::max(port_rate, 1.0)));
  };
  const auto xoff = [&](const Queue& q) {
    const double ports = ports_of(q);
    return ports *
           catalog::pfc_ingress_port(spec_, units::DataRate::from_si(q.link_cap / ports)).pause.xoff.si();
  };
  // Switch egress ports the senders overload, from the senders' side up (congestion spreads upstream:
  // a paused port is an egress of the switch before it, at the capacity the pauses leave it).
  std::vector<int> work;
  for (std::size_t i = 0; i < queues.size(); ++i)
    if (queues[i].egress)
      work.push_back(static_cast<int>(i));
  std::vector<double> demand, share;
  for (int round = 0; round < 8 && !work.empty(); ++round) {
    std::vector<int> next;
    for (const int qi : work) {
      auto& q = queues[static_cast<std::size_t>(qi)];
      const double offered = q.arriving(paths);
      if (!(offered > q.left * (1 + 1e-9)))
        continue;
      double rtt = 0;
      for (const int j : q.paths)
        rtt = std::max(rtt, 2 * paths[static_cast<std::size_t>(j)].latency);
      auto& rec = summary_.ports[edge_of(q.id)];
      rec.link = edge_of(q.id);
      const bool dcqcn = rate_control && round == 0;
      double dcqcn_pause = 0;
      if (dcqcn) {
        // DCQCN holds the senders near the port's rate; what it leaves, and whether its queue still
        // reaches XOFF, come from its fluid model at this port.
        const double ports = ports_of(q);
        const int n = static_cast<int>(q.paths.size());
        const int per_port = std::max(1, static_cast<int>(std::lround(n / ports)));
        const auto& d = dcqcn_at(q.link_cap / ports, per_port, offered / n, rtt);
        // What the port leaves over the transfers' time: its steady state, and the start-up transient
        // that the rate control spends cutting the line-rate start and climbing back.
        const double stretch = dcqcn_stretch(q.link_cap / ports, per_port, offered / n, rtt, burst(q));
        q.left = std::min(q.left, q.cap / stretch);
        rec.marking = std::max(rec.marking, d.marking);
        rec.utilisation = std::min(rec.utilisation, 1.0 / stretch);
        rec.queue_bytes = std::max(rec.queue_bytes, d.queue);
        dcqcn_pause = d.pause_fraction;
        if (d.k_min >= d.xoff)
          summary_.unmarked[std::llround(q.link_cap / ports)] = {d.k_min, d.xoff};
      }
      // The port serves what arrives max-min fairly; each ingress port feeding it (the link before it on
      // each path) holds what it brings beyond its flows' shares, and pauses its sender for that part.
      q.shares(paths, q.left, demand, share);
      std::map<int, std::pair<double, double>> into; // ingress -> (arriving, served) towards q
      for (std::size_t i = 0; i < q.paths.size(); ++i) {
        const auto& p = paths[static_cast<std::size_t>(q.paths[i])];
        if (q.hops[i] == 0)
          continue;
        auto& [arriving, served] = into[p.queues[q.hops[i] - 1]];
        arriving += p.arriving[q.hops[i]];
        served += share[i];
      }
      const double lasts = burst(q);
      for (const auto& [ii, flow] : into) {
        const auto [arriving, served] = flow;
        const double pause = dcqcn ? dcqcn_pause : 1.0 - served / std::max(arriving, 1e-300);
        if (!(pause > 1e-12))
          continue;
        auto& in = queues[static_cast<std::size_t>(ii)];
        // Without rate control the buffer absorbs the start: the pauses begin once the port's queue for
        // this egress has filled to XOFF.
        double f = pause;
        if (!dcqcn) {
          const double fill = arriving * pause; // bytes per second the port's queue grows by
          const double until = xoff(in) / fill;
          f = pause * std::max(0.0, 1.0 - until / std::max(lasts, 1e-12));
        }
        if (f <= in.paused)
          continue;
        in.paused = f;
        q.limits = true;
        in.limits = true;
        // While not paused its sender pushes what arrives at it; paused, nothing of that class passes.
        in.left = std::min(in.left, (1.0 - f) * std::min(in.arriving(paths), in.cap));
        auto& r = summary_.ports[edge_of(in.id)];
        r.link = edge_of(in.id);
        r.pause_fraction = std::max(r.pause_fraction, f);
        if (in.egress)
          next.push_back(ii);
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
  for (const auto& q : queues) {
    if (q.limits)
      q.shares(paths, q.left, demand, share);
    const double scaled = std::max(1.0, q.load / q.left) / std::max(1.0, q.load / q.cap);
    for (std::size_t i = 0; i < q.paths.size(); ++i) {
      const auto j = static_cast<std::size_t>(q.paths[i]);
      overcommit[j] = std::max(overcommit[j], q.load / q.cap);
      if (q.limits)
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
  // A flow is held back only while what holds it back runs: beyond the end of the other transfers it met
  // (each at its own stretch) it moves at its uncongested rate again. At rate r/k until that end and r
  // after, its time is d' = d (1 + (overlap / d)(1 - 1/k)) where that is less than k d (overlap: from its
  // start to that end). Background flows last as long as anything; a transfer's own flows congesting one
  // another (an incast within it) hold it back for its whole length: its factor alone is kept.
  std::map<engine::TaskId, double> until; // the latest stretched end of the others it met
  if (background.empty()) {
    const auto stretched_end = [&](engine::TaskId j) {
      const auto& t = timings[static_cast<std::size_t>(j)];
      const auto& k = factor[j];
      const double worst = k.empty() ? 1.0 : *std::max_element(k.begin(), k.end());
      return t.start + (t.end - t.start) * worst;
    };
    for (const auto& [set, unused] : seen) {
      (void)unused;
      // The two latest ends, so that each member gets the latest of the others.
      double first = -1;
      double second = -1;
      engine::TaskId first_id = -1;
      for (const auto j : set) {
        const double e = stretched_end(j);
        if (e > first) {
          second = first;
          first = e;
          first_id = j;
        } else if (e > second) {
          second = e;
        }
      }
      for (const auto j : set) {
        auto& u = until[j];
        u = std::max(u, j == first_id ? second : first);
      }
    }
  }
  for (const auto id : transfers) {
    auto& k = factor[id];
    const auto it = until.find(id);
    if (it == until.end() || k.empty())
      continue;
    const auto& t = timings[static_cast<std::size_t>(id)];
    const double d = t.end - t.start;
    const double overlap = std::max(0.0, it->second - t.start);
    std::vector<double> capped = k;
    bool binds = false;
    for (auto& f : capped) {
      const double c = 1 + overlap / d * (1 - 1 / f);
      if (c < f * (1 - 1e-9)) {
        f = c;
        binds = true;
      }
    }
    if (!binds)
      continue;
    const auto alone = flow_factors({{&graph.task(id), d, {}, 1.0, class_of(id)}}).front();
    for (std::size_t j = 0; j < capped.size() && j < alone.size(); ++j)
      k[j] = std::max(capped[j], alone[j]);
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
