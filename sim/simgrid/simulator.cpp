#include "sim/simgrid/simulator.hpp"

#include "sim/simgrid/sparse_zone.hpp"

#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <unordered_map>

namespace sg4 = simgrid::s4u;

namespace dpusim::simgrid {
namespace {

// SimGrid configuration: the parallel-task model (transfers coupled with CPU work progress at their
// bottleneck rate), and no TCP window cap (RoCE is not TCP; host TCP is modelled through CPU work).
const char* const kArgs[] = {"dpusim",
                             "--cfg=host/model:ptask_L07",
                             "--cfg=network/TCP-gamma:1e18",
                             "--cfg=network/crosstraffic:0",
                             "--log=root.thres:critical",
                             nullptr};

struct Binding;

std::uint64_t pair_key(engine::HostIndex src, engine::HostIndex dst) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32U) |
         static_cast<std::uint32_t>(dst);
}

} // namespace

struct Simulator::Impl {
  std::vector<std::string> arg_storage;
  std::vector<char*> argv;
  int argc = 0;
  std::unique_ptr<sg4::Engine> engine;
  std::vector<sg4::Host*> hosts;
  std::size_t activities = 0;
  // Routes made of several equal paths: a flow's bytes are shared among them (RouteDecl::spread).
  std::unordered_map<std::uint64_t, int> spread;

  // State of the graph being executed.
  const engine::TaskGraph* graph = nullptr;
  std::vector<engine::TaskTiming>* timings = nullptr;
  std::vector<int> pending;
  std::vector<std::pair<Impl*, engine::TaskId>> bindings;
  std::vector<sg4::ActivityPtr> live;
  std::vector<sg4::ActivityPtr> finished_batch; // released at the next completion, never inside its own
  std::size_t done = 0;
  std::size_t foreground = 0; // tasks that are not background
  std::vector<engine::TaskId> background;
  double t0 = 0;
  const Progress* progress = nullptr;
  std::size_t next_progress = 0;

  // Flapping links (PlatformDecl::flaps): each goes down and up on kernel timers from the start of an
  // execution until its graph has finished.
  struct Flap {
    engine::LinkFlapDecl decl;
    sg4::Link* link = nullptr;
    double full = 0; // bytes per second
    bool down = false;
    ::simgrid::kernel::timer::Timer* pending = nullptr;
  };
  std::vector<Flap> flaps; // never resized after the platform is built: timers hold references
  std::unordered_map<const sg4::Link*, std::vector<std::size_t>> flaps_of; // indexes into flaps
  bool flapping = false;

  void start_flaps();
  void schedule(Flap& f, double at); // the flap's next change, at `at`
  void set_bandwidth(const sg4::Link* link);
  void stop_flaps();

  void start(engine::TaskId id);
  void finished(engine::TaskId id);
  void stop_background();
  sg4::ActivityPtr make_activity(const engine::Task& t);
};

Simulator::Simulator(const engine::PlatformDecl& platform) : impl_(std::make_unique<Impl>()) {
  auto& im = *impl_;
  for (const char* const* a = kArgs; *a != nullptr; ++a)
    im.arg_storage.emplace_back(*a);
  for (auto& s : im.arg_storage)
    im.argv.push_back(s.data());
  im.argv.push_back(nullptr);
  im.argc = static_cast<int>(im.arg_storage.size());
  im.engine = std::make_unique<sg4::Engine>(&im.argc, im.argv.data());

  // Only the routes the plan uses, in a sparse store (a full zone would hold hosts x hosts entries).
  auto* sparse = new SparseZone("cluster");
  auto* zone = sparse->get_iface();
  im.hosts.reserve(platform.hosts.size());
  for (const auto& h : platform.hosts)
    im.hosts.push_back(zone->create_host(h.name, h.speed)->set_core_count(h.cores));
  std::vector<sg4::Link*> links;
  links.reserve(platform.links.size());
  for (const auto& l : platform.links)
    links.push_back(zone->create_link(l.name, l.bandwidth)->set_latency(l.latency));
  for (const auto& r : platform.routes) {
    std::vector<sg4::LinkInRoute> path;
    path.reserve(r.links.size());
    for (auto li : r.links)
      path.emplace_back(links.at(static_cast<std::size_t>(li)));
    sparse->add_spread_route(im.hosts.at(static_cast<std::size_t>(r.src))->get_netpoint(),
                             im.hosts.at(static_cast<std::size_t>(r.dst))->get_netpoint(), path, r.spread);
    if (r.spread > 1)
      im.spread[pair_key(r.src, r.dst)] = r.spread;
  }
  zone->seal();
  for (const auto& f : platform.flaps) {
    const auto li = static_cast<std::size_t>(f.link);
    im.flaps_of[links.at(li)].push_back(im.flaps.size());
    im.flaps.push_back({f, links.at(li), platform.links.at(li).bandwidth, false, nullptr});
  }

  sg4::Activity::on_completion_cb([](const sg4::Activity& a) {
    auto* b = a.get_data<std::pair<Impl*, engine::TaskId>>();
    if (b != nullptr && a.get_state() == sg4::Activity::State::FINISHED)
      b->first->finished(b->second);
  });
}

Simulator::~Simulator() = default;

sg4::ActivityPtr Simulator::Impl::make_activity(const engine::Task& t) {
  using engine::TaskKind;
  if ((t.kind == TaskKind::work || t.kind == TaskKind::background) && t.loads.size() == 1 &&
      t.flows.empty()) {
    return sg4::Exec::init()
        ->set_flops_amount(t.loads[0].amount)
        ->set_host(hosts.at(static_cast<std::size_t>(t.loads[0].host)));
  }
  // A parallel task: flow endpoints first (each once), then one entry per load (one core each).
  std::vector<engine::HostIndex> members;
  auto index_of = [&members](engine::HostIndex h) {
    for (std::size_t i = 0; i < members.size(); ++i)
      if (members[i] == h)
        return i;
    members.push_back(h);
    return members.size() - 1;
  };
  std::vector<std::pair<std::size_t, std::size_t>> flow_pos;
  for (const auto& f : t.flows)
    flow_pos.emplace_back(index_of(f.src), index_of(f.dst));
  const std::size_t endpoints = members.size();
  for (const auto& l : t.loads)
    members.push_back(l.host);
  const std::size_t n = members.size();
  std::vector<double> work(n, 0.0);
  for (std::size_t i = 0; i < t.loads.size(); ++i)
    work[endpoints + i] = t.loads[i].amount;
  std::vector<double> bytes(n * n, 0.0);
  for (std::size_t i = 0; i < t.flows.size(); ++i) {
    const auto& f = t.flows[i];
    const auto s = spread.empty() ? spread.end() : spread.find(pair_key(f.src, f.dst));
    bytes[flow_pos[i].first * n + flow_pos[i].second] += s == spread.end() ? f.bytes : f.bytes / s->second;
  }
  std::vector<sg4::Host*> sg_hosts;
  sg_hosts.reserve(n);
  for (auto h : members)
    sg_hosts.push_back(hosts.at(static_cast<std::size_t>(h)));
  return sg4::Exec::init()->set_hosts(sg_hosts)->set_flops_amounts(work)->set_bytes_amounts(bytes);
}

void Simulator::Impl::set_bandwidth(const sg4::Link* link) {
  // SimGrid cannot run a flow over a link of bandwidth 0 (its engine reports a deadlock): a link that is
  // down keeps a billionth of its rate, which moves nothing a step would notice.
  constexpr double kLeast = 1e-9;
  const auto& on_link = flaps_of.at(link);
  double lost = 0;
  for (const std::size_t i : on_link)
    lost += flaps[i].down ? flaps[i].decl.share : 0.0;
  const auto& first = flaps[on_link.front()];
  first.link->set_bandwidth(first.full * std::max(kLeast, 1.0 - lost));
}

void Simulator::Impl::start_flaps() {
  flapping = true;
  for (auto& f : flaps) {
    // Where in its period the link is at this execution's start: down in [phase, phase + down).
    const auto& d = f.decl;
    const double pos = std::fmod(d.every_s - d.phase_s, d.every_s); // phase_s in [0, every_s)
    f.down = pos < d.down_s;
    schedule(f, t0 + (f.down ? d.down_s - pos : d.every_s - pos));
  }
  for (const auto& [link, on_link] : flaps_of)
    set_bandwidth(link);
}

void Simulator::Impl::schedule(Flap& f, double at) {
  f.pending = ::simgrid::kernel::timer::Timer::set(at, [this, &f, at] {
    f.pending = nullptr;
    if (!flapping)
      return;
    f.down = !f.down;
    set_bandwidth(f.link);
    schedule(f, at + (f.down ? f.decl.down_s : f.decl.every_s - f.decl.down_s));
  });
}

void Simulator::Impl::stop_flaps() {
  if (!flapping)
    return;
  flapping = false;
  for (auto& f : flaps) {
    if (f.pending != nullptr)
      f.pending->remove();
    f.pending = nullptr;
    f.down = false;
  }
  for (const auto& f : flaps)
    f.link->set_bandwidth(f.full);
}

void Simulator::Impl::start(engine::TaskId first) {
  std::vector<engine::TaskId> ready{first};
  while (!ready.empty()) {
    const engine::TaskId id = ready.back();
    ready.pop_back();
    const auto& t = graph->task(id);
    const double now = sg4::Engine::get_clock() - t0;
    (*timings)[static_cast<std::size_t>(id)].start = now;
    double total = t.delay_s;
    for (const auto& l : t.loads)
      total += l.amount;
    for (const auto& f : t.flows)
      total += f.bytes;
    if (t.kind != engine::TaskKind::background && (t.kind == engine::TaskKind::join || total <= 0)) {
      // Nothing to simulate: finishes at once and releases its successors.
      (*timings)[static_cast<std::size_t>(id)].end = now;
      ++done;
      for (engine::TaskId s : graph->successors(id))
        if (--pending[static_cast<std::size_t>(s)] == 0)
          ready.push_back(s);
      continue;
    }
    if (t.kind == engine::TaskKind::delay) {
      // A pure delay shares nothing: a kernel timer ends it, without a variable in the solver.
      ::simgrid::kernel::timer::Timer::set(sg4::Engine::get_clock() + t.delay_s,
                                           [this, id] { finished(id); });
      continue;
    }
    sg4::ActivityPtr act = make_activity(t);
    act->set_data(&bindings[static_cast<std::size_t>(id)]);
    live[static_cast<std::size_t>(id)] = act;
    ++activities;
    act->start();
  }
}

void Simulator::Impl::finished(engine::TaskId id) {
  finished_batch.clear();
  if (graph->task(id).kind == engine::TaskKind::background) {
    // Ran out of work before the graph ended: nothing more to do for it.
    auto& slot = live[static_cast<std::size_t>(id)];
    finished_batch.push_back(std::move(slot));
    slot = nullptr;
    (*timings)[static_cast<std::size_t>(id)].end = sg4::Engine::get_clock() - t0;
    return;
  }
  auto& slot = live[static_cast<std::size_t>(id)];
  finished_batch.push_back(std::move(slot));
  slot = nullptr;
  (*timings)[static_cast<std::size_t>(id)].end = sg4::Engine::get_clock() - t0;
  ++done;
  if (progress != nullptr && *progress && done >= next_progress) {
    (*progress)(done, foreground);
    next_progress = done + std::max<std::size_t>(1, foreground / 100);
  }
  for (engine::TaskId s : graph->successors(id))
    if (--pending[static_cast<std::size_t>(s)] == 0)
      start(s);
  if (done == foreground) {
    stop_background();
    stop_flaps();
  }
}

void Simulator::Impl::stop_background() {
  const double now = sg4::Engine::get_clock() - t0;
  for (engine::TaskId b : background) {
    auto& act = live[static_cast<std::size_t>(b)];
    if (act == nullptr)
      continue;
    auto& timing = (*timings)[static_cast<std::size_t>(b)];
    timing.end = now;
    if (const auto* exec = dynamic_cast<const sg4::Exec*>(act.get()); exec != nullptr)
      timing.done = 1.0 - exec->get_remaining_ratio();
    act->cancel();
    finished_batch.push_back(std::move(act));
    act = nullptr;
  }
}

std::vector<engine::TaskTiming> Simulator::execute(const engine::TaskGraph& graph, const Progress& progress,
                                                   Flaps flaps) {
  graph.check_acyclic();
  auto& im = *impl_;
  const auto wall0 = std::chrono::steady_clock::now();
  std::vector<engine::TaskTiming> timings(graph.size());
  im.graph = &graph;
  im.timings = &timings;
  im.pending.assign(graph.size(), 0);
  im.bindings.clear();
  im.bindings.reserve(graph.size());
  for (std::size_t i = 0; i < graph.size(); ++i) {
    im.pending[i] = graph.predecessor_count(static_cast<engine::TaskId>(i));
    im.bindings.emplace_back(&im, static_cast<engine::TaskId>(i));
  }
  im.live.assign(graph.size(), nullptr);
  im.done = 0;
  im.background.clear();
  for (std::size_t i = 0; i < graph.size(); ++i)
    if (graph.task(static_cast<engine::TaskId>(i)).kind == engine::TaskKind::background)
      im.background.push_back(static_cast<engine::TaskId>(i));
  im.foreground = graph.size() - im.background.size();
  im.t0 = sg4::Engine::get_clock();
  im.progress = &progress;
  im.next_progress = 0;
  const std::size_t activities_before = im.activities;
  if (flaps == Flaps::apply && !im.flaps.empty() && im.foreground > 0)
    im.start_flaps();
  for (std::size_t i = 0; i < graph.size(); ++i)
    if (im.pending[i] == 0 && timings[i].start < 0)
      im.start(static_cast<engine::TaskId>(i));
  if (im.foreground == 0 || im.done == im.foreground) {
    im.stop_background();
    im.stop_flaps();
  }
  im.engine->run();
  im.stop_flaps();
  im.finished_batch.clear();
  if (im.done != im.foreground)
    throw std::runtime_error(fmt::format("the simulation stopped with {} of {} tasks unfinished",
                                         im.foreground - im.done, im.foreground));
  if (progress)
    progress(im.done, im.foreground);
  im.graph = nullptr;
  im.timings = nullptr;
  im.progress = nullptr;
  stats_.activities += im.activities - activities_before;
  stats_.wall_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return timings;
}

} // namespace dpusim::simgrid
