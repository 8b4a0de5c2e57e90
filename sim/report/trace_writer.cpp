#include "sim/report/trace_writer.hpp"

#include "models/base/atomic_file.hpp"
#include "sim/topology/topology.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

namespace dpusim::report {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

constexpr int kCommTrackOffset = 1;
constexpr int kNicTrackBase = 100;
// Values below this are the rounding of a counter's running sum, not load.
constexpr double kCounterEpsilon = 1e-9;

/// A piecewise-constant series built from intervals that each add a rate while they run.
class Counter {
public:
  void add(double start, double end, double rate) {
    if (!(end > start) || !(rate > 0))
      return;
    steps_.emplace_back(start, rate);
    steps_.emplace_back(end, -rate);
  }
  /// Chrome "C" events, one per change, starting and ending at 0.
  [[nodiscard]] std::string render(const std::string& name, int pid, std::string_view unit) const {
    auto steps = steps_;
    std::stable_sort(steps.begin(), steps.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out;
    if (!steps.empty() && steps.front().first > 0) // from the start of the iteration
      out += fmt::format(R"({{"name":"{}","ph":"C","ts":0.000,"pid":{},"args":{{"{}":0}}}},)", escape(name),
                         pid, unit);
    double value = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      value += steps[i].second;
      if (i + 1 < steps.size() && steps[i + 1].first == steps[i].first)
        continue; // one event per instant
      const double shown = value < kCounterEpsilon ? 0.0 : value;
      out += fmt::format(R"({{"name":"{}","ph":"C","ts":{:.3f},"pid":{},"args":{{"{}":{:.6g}}}}},)",
                         escape(name), steps[i].first * 1e6, pid, unit, shown);
    }
    return out;
  }
  [[nodiscard]] bool empty() const { return steps_.empty(); }

private:
  std::vector<std::pair<double, double>> steps_; // (time, change of the rate)
};

} // namespace

std::string render_trace(const plan::IterationPlan& plan, const std::vector<engine::TaskTiming>& timings,
                         const topology::Topology& topo, double tp_collective_s,
                         const std::vector<LinkLoad>& fabric) {
  using plan::TaskCategory;
  const int per_node = topo.layout().node.gpus;
  const int nics = topo.layout().node.nics;
  std::string events;
  auto event = [&](const std::string& name, std::string_view cat, double start, double end, int pid, int tid,
                   const std::string& args) {
    if (!events.empty())
      events += ",\n";
    events += fmt::format(
        R"({{"name":"{}","cat":"{}","ph":"X","ts":{:.3f},"dur":{:.3f},"pid":{},"tid":{},"args":{{{}}}}})",
        escape(name), cat, start * 1e6, (end - start) * 1e6, pid, tid, args);
  };
  std::set<std::pair<int, int>> tracks;
  std::string flows;
  int flow_id = 0;
  // Flow arrows between the members of a communication: a pipeline send lists its senders then their
  // receivers, rank by rank (each sender to its receiver); a reduction lists its ring (each member to
  // the next). They start and end at the start of the members' slices, which they bind to.
  auto link_members = [&](const plan::TaskInfo& ti, double start) {
    auto arrow = [&](int from, int to) {
      ++flow_id;
      flows += fmt::format(
          R"({{"name":"{}","cat":"flow","ph":"s","id":{},"ts":{:.3f},"pid":{},"tid":{}}},)"
          R"({{"name":"{}","cat":"flow","ph":"f","bp":"e","id":{},"ts":{:.3f},"pid":{},"tid":{}}},)",
          escape(ti.label), flow_id, start * 1e6, from / per_node, 2 * (from % per_node) + kCommTrackOffset,
          escape(ti.label), flow_id, start * 1e6, to / per_node, 2 * (to % per_node) + kCommTrackOffset);
    };
    const std::size_t n = ti.gpus.size();
    if (ti.category == plan::TaskCategory::pp_transfer && n % 2 == 0)
      for (std::size_t k = 0; k < n / 2; ++k)
        arrow(ti.gpus[k], ti.gpus[k + n / 2]);
    else
      for (std::size_t k = 0; k + 1 < n; ++k)
        arrow(ti.gpus[k], ti.gpus[k + 1]);
  };
  const int nodes = std::max(1, topo.layout().nodes);
  Counter host_cores;              // busy host cores per node, averaged over the nodes
  std::map<int, Counter> nic_load; // payload Gb/s through each NIC
  for (std::size_t i = 0; i < plan.info.size(); ++i) {
    const auto& ti = plan.info[i];
    const auto& t = timings[i];
    const auto cat = plan::category_name(ti.category);
    // As metrics::compute_metrics books it: replicas the task stands for, the done part of background work.
    const double scale =
        ti.weight *
        (plan.graph.task(static_cast<engine::TaskId>(i)).kind == engine::TaskKind::background ? t.done : 1.0);
    // A communication's last task may carry the host work of its whole span (from its latency on).
    const double from = !(t.end > t.start) && ti.span_from >= 0
                            ? timings[static_cast<std::size_t>(ti.span_from)].start
                            : t.start;
    if (const double core_s = ti.host_cpu_core_s() * scale; core_s > 0 && t.end > from)
      host_cores.add(from, t.end, core_s / (t.end - from) / nodes);
    switch (ti.category) {
    case TaskCategory::forward:
    case TaskCategory::backward:
    case TaskCategory::optimizer:
      for (int g : ti.gpus) {
        const int tid = 2 * (g % per_node);
        tracks.insert({g / per_node, tid});
        event(ti.label, cat, t.start, t.end, g / per_node, tid,
              fmt::format(R"("kernel_s":{:.9g},"tp_collectives":{},"tp_collective_s":{:.9g})", ti.compute_s,
                          ti.tp_collectives, tp_collective_s));
      }
      break;
    case TaskCategory::dp_collective:
    case TaskCategory::pp_transfer: {
      // The whole communication, from its latency to its last ring, on the GPUs' communication tracks.
      const double start =
          ti.span_from >= 0 ? timings[static_cast<std::size_t>(ti.span_from)].start : t.start;
      for (int g : ti.gpus) {
        const int tid = 2 * (g % per_node) + kCommTrackOffset;
        tracks.insert({g / per_node, tid});
        event(ti.label, cat, start, t.end, g / per_node, tid,
              fmt::format(R"("bytes_per_rank":{:.9g},"host_cpu_core_s":{:.9g})", ti.bytes,
                          ti.host_cpu_core_s()));
      }
      link_members(ti, start);
      if (ti.span_from >= 0 &&
          plan.graph.task(static_cast<engine::TaskId>(i)).kind != engine::TaskKind::transfer)
        break;
      [[fallthrough]];
    }
    case TaskCategory::flow: {
      // Each ring (or the single transfer) on the tracks of the NICs it crosses.
      std::set<int> seen;
      for (int n : ti.nics) {
        if (!seen.insert(n).second)
          continue;
        const int tid = kNicTrackBase + n % nics;
        tracks.insert({n / nics, tid});
        event(ti.label, cat, t.start, t.end, n / nics, tid,
              fmt::format(R"("bytes_per_rank":{:.9g})", ti.bytes));
        if (t.end > t.start)
          nic_load[n].add(t.start, t.end, ti.bytes * 8 / (t.end - t.start) / 1e9);
      }
      break;
    }
    default:
      break;
    }
  }
  std::string meta;
  std::set<int> pids;
  for (const auto& [pid, tid] : tracks) {
    pids.insert(pid);
    std::string name = tid >= kNicTrackBase
                           ? fmt::format("nic{}", tid - kNicTrackBase)
                           : fmt::format("gpu{} {}", tid / 2, tid % 2 == 0 ? "compute" : "comm");
    meta += fmt::format(R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{}"}}}},)", pid,
                        tid, name);
    meta += fmt::format(
        R"({{"name":"thread_sort_index","ph":"M","pid":{},"tid":{},"args":{{"sort_index":{}}}}},)", pid, tid,
        tid);
  }
  // Counters: each NIC's load in its node's process, the busy host cores in a process of the cluster's.
  std::string counters;
  for (const auto& [n, c] : nic_load) {
    pids.insert(n / nics);
    counters += c.render(fmt::format("nic{} payload", n % nics), n / nics, "Gb/s");
  }
  const int cluster_pid = nodes;
  if (!host_cores.empty()) {
    counters += host_cores.render("busy host cores per node", cluster_pid, "cores");
    meta += fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"cluster"}}}},)"
                        R"({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}},)",
                        cluster_pid, cluster_pid, cluster_pid);
  }
  // The busiest fabric links' utilisation, in a process after the cluster's, busiest first.
  const int fabric_pid = nodes + 1;
  std::string link_counters;
  for (const auto& l : fabric) {
    Counter c;
    for (const auto& [start, end, fraction] : l.intervals)
      c.add(start, end, fraction);
    if (!c.empty())
      link_counters += c.render(l.link, fabric_pid, "utilisation");
  }
  if (!link_counters.empty()) {
    counters += link_counters;
    meta += fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"fabric"}}}},)"
                        R"({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}},)",
                        fabric_pid, fabric_pid, fabric_pid);
  }
  for (int pid : pids)
    meta += fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"node {}"}}}},)"
                        R"({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}},)",
                        pid, pid, pid, pid);
  std::string head = meta + counters + flows; // each event followed by a comma
  if (events.empty() && !head.empty())
    head.pop_back();
  return fmt::format("{{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n{}{}]}}\n", head, events);
}

void write_trace(const std::string& path, const plan::IterationPlan& plan,
                 const std::vector<engine::TaskTiming>& timings, const topology::Topology& topo,
                 double tp_collective_s, const std::vector<LinkLoad>& fabric) {
  write_file_atomically(path, render_trace(plan, timings, topo, tp_collective_s, fabric));
}

} // namespace dpusim::report
