#include "sim/report/trace_writer.hpp"

#include "models/core/atomic_file.hpp"

#include <fmt/format.h>
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

} // namespace

std::string render_trace(const plan::IterationPlan& plan, const std::vector<engine::TaskTiming>& timings,
                         const topology::Topology& topo, double tp_collective_s) {
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
  for (std::size_t i = 0; i < plan.info.size(); ++i) {
    const auto& ti = plan.info[i];
    const auto& t = timings[i];
    const auto cat = plan::category_name(ti.category);
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
      }
      break;
    }
    default:
      break;
    }
  }
  std::string meta;
  std::set<int> nodes;
  for (const auto& [pid, tid] : tracks) {
    nodes.insert(pid);
    std::string name = tid >= kNicTrackBase
                           ? fmt::format("nic{}", tid - kNicTrackBase)
                           : fmt::format("gpu{} {}", tid / 2, tid % 2 == 0 ? "compute" : "comm");
    meta += fmt::format(R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{}"}}}},)", pid,
                        tid, name);
    meta += fmt::format(
        R"({{"name":"thread_sort_index","ph":"M","pid":{},"tid":{},"args":{{"sort_index":{}}}}},)", pid, tid,
        tid);
  }
  for (int pid : nodes)
    meta +=
        fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"node {}"}}}},)", pid, pid);
  return fmt::format("{{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n{}{}]}}\n", meta, events);
}

void write_trace(const std::string& path, const plan::IterationPlan& plan,
                 const std::vector<engine::TaskTiming>& timings, const topology::Topology& topo,
                 double tp_collective_s) {
  write_file_atomically(path, render_trace(plan, timings, topo, tp_collective_s));
}

} // namespace dpusim::report
