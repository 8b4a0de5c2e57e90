#include "sim/cli/traffic_table.hpp"

#include "sim/planner/table.hpp"
#include "sim/report/distribution.hpp"
#include "sim/run/collective_sweep.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace dpusim::cli {

namespace {

std::string num(double v) {
  return fmt::format("{:.9g}", v);
}

/// Times in microseconds, wide enough for a second.
std::string us(double s) {
  return fmt::format("{:>11.2f}", s * 1e6);
}

/// The links that carried most, then the most paused and the most marked port.
std::string links_lines(const run::TrafficResult& r) {
  std::string out;
  std::vector<std::string> busiest;
  for (const auto& l : r.links) {
    if (busiest.size() >= 4)
      break;
    if (l.kind == "nic_port" || l.kind == "fabric")
      busiest.push_back(fmt::format("{} {:.1f}%", l.link, 100 * l.mean_utilisation));
  }
  if (!busiest.empty()) {
    out += "# busiest links (mean utilisation over the makespan):";
    for (std::size_t i = 0; i < busiest.size(); ++i)
      out += (i == 0 ? " " : ", ") + busiest[i];
    out += "\n";
  }
  if (!r.congestion)
    return out;
  const report::LinkUsage* paused = nullptr;
  const report::LinkUsage* marked = nullptr;
  for (const auto& l : r.links) {
    if (!l.congestion)
      continue;
    if (l.congestion->pause_fraction > 0 &&
        (paused == nullptr || l.congestion->pause_fraction > paused->congestion->pause_fraction))
      paused = &l;
    if (l.congestion->marking > 0 &&
        (marked == nullptr || l.congestion->marking > marked->congestion->marking))
      marked = &l;
  }
  out += paused != nullptr ? fmt::format("# most paused: {}, its sender paused {:.1f}% of the time (PFC)\n",
                                         paused->link, 100 * paused->congestion->pause_fraction)
                           : "# no port paused (PFC)\n";
  if (marked != nullptr)
    out += fmt::format("# most marked: {}, {:.3f}% of its packets ECN-marked at a mean queue of {:.1f} KB, "
                       "DCQCN leaving {:.1f}% of its rate\n",
                       marked->link, 100 * marked->congestion->marking, marked->congestion->queue_bytes / 1e3,
                       100 * marked->congestion->utilisation);
  if (r.summary.slowed > 0)
    out += fmt::format(
        "# {} of {} RDMA flows over the fabric slowed by more than 0.1%; the worst, {}, {:.2f}x\n",
        r.summary.slowed, r.summary.transfers, r.summary.worst_label, r.summary.worst_factor);
  return out;
}

/// nccl-tests' bus bandwidth factor of a collective group's operation on `ranks` ranks.
double bus_factor(input::TrafficPattern p, int ranks) {
  const auto op = p == input::TrafficPattern::all_gather       ? run::SweepOp::all_gather
                  : p == input::TrafficPattern::reduce_scatter ? run::SweepOp::reduce_scatter
                  : p == input::TrafficPattern::alltoall       ? run::SweepOp::alltoall
                                                               : run::SweepOp::all_reduce;
  return run::bus_bandwidth_factor(op, ranks);
}

struct CollectiveRow {
  double time_s = 0;
  double algbw = 0; // GB/s
  double busbw = 0; // GB/s
  int nodes = 0;
};

CollectiveRow collective_row(const input::Traffic& traffic, const run::TrafficResult& r, std::size_t i) {
  const auto& c = traffic.collectives[i];
  const auto& t = r.collectives[i];
  CollectiveRow row;
  row.time_s = t.fct_s();
  row.algbw = row.time_s > 0 ? c.bytes / row.time_s / 1e9 : 0;
  row.busbw = row.algbw * bus_factor(traffic.groups[static_cast<std::size_t>(c.group)].pattern,
                                     static_cast<int>(c.hosts.size()));
  std::set<int> nodes;
  for (const int h : c.hosts)
    nodes.insert(h / std::max(1, r.gpus_per_node));
  row.nodes = static_cast<int>(nodes.size());
  return row;
}

} // namespace

std::string render_traffic_table(const TrafficHeading& heading, const input::Traffic& traffic,
                                 const run::TrafficResult& r) {
  std::string out = fmt::format("# dpusim traffic: {} on {} (variant {}, inter-node traffic on {})\n",
                                traffic.file, heading.scenario, heading.variant, r.device);
  out += fmt::format(
      "# {} hosts: {} nodes x {} GPUs; {} flows{} in {} groups\n", r.hosts,
      r.hosts / std::max(1, r.gpus_per_node), r.gpus_per_node, traffic.flows.size(),
      traffic.collectives.empty() ? "" : fmt::format(" and {} collectives", traffic.collectives.size()),
      traffic.groups.size());
  if (r.congestion)
    out +=
        fmt::format("# congestion: {} (DCQCN and PFC fluid models on every RDMA flow's ports)\n", r.control);
  else if (!r.control.empty())
    out += fmt::format(
        "# congestion ({}) not applied: kernel TCP runs in a lossy class that PFC does not pause, "
        "and its drops and retransmissions are not modelled; links shared max-min, an upper "
        "bound on its speed\n",
        r.control);
  else
    out += "# links shared max-min (no congestion section: ideal congestion control)\n";
  out += "#\n";
  out += fmt::format("# {:<20} {:>11} {:>7} {:>13} {:>11} {:>11} {:>11} {:>11} {:>9} {:>9}\n", "group",
                     "pattern", "flows", "size", "start", "fct p50", "fct p99", "fct max", "rate p50",
                     "vs maxmin");
  out += fmt::format("# {:<20} {:>11} {:>7} {:>13} {:>11} {:>11} {:>11} {:>11} {:>9} {:>9}\n", "", "", "",
                     "(B)", "(us)", "(us)", "(us)", "(us)", "(Gb/s)", "(max)");
  for (std::size_t g = 0; g < traffic.groups.size(); ++g) {
    const auto& group = traffic.groups[g];
    const std::string name = group.name.size() > 20 ? group.name.substr(0, 19) + "~" : group.name;
    const auto pattern = input::traffic_pattern_name(group.pattern);
    if (input::collective_pattern(group.pattern)) {
      // One operation: its time in every column, its bus bandwidth as the rate.
      for (std::size_t i = 0; i < traffic.collectives.size(); ++i) {
        const auto& c = traffic.collectives[i];
        if (c.group != static_cast<int>(g))
          continue;
        const auto row = collective_row(traffic, r, i);
        const auto& t = r.collectives[i];
        out += fmt::format("  {:<20} {:>11} {:>7} {:>13.0f} {} {} {} {} {:>9.1f} {:>9.3f}\n", name,
                           pattern.substr(0, 11), c.hosts.size(), c.bytes, us(c.start_s), us(row.time_s),
                           us(row.time_s), us(row.time_s), row.busbw * 8,
                           t.uncongested_s > 0 ? t.fct_s() / t.uncongested_s : 1.0);
      }
      continue;
    }
    std::vector<double> fct;
    std::vector<double> rate;
    std::vector<double> stretch;
    double bytes = 0;
    double start = 0;
    for (std::size_t i = 0; i < traffic.flows.size(); ++i) {
      const auto& f = traffic.flows[i];
      if (f.group != static_cast<int>(g))
        continue;
      const auto& t = r.flows[i];
      bytes = f.bytes;
      start = f.start_s;
      fct.push_back(t.fct_s());
      rate.push_back(t.fct_s() > 0 ? f.bytes * 8 / t.fct_s() / 1e9 : 0);
      stretch.push_back(t.uncongested_s > 0 ? t.fct_s() / t.uncongested_s : 1);
    }
    if (group.background) {
      out += fmt::format("  {:<20} {:>11} {:>7} {:>13} {:>11} {:>11} {:>11} {:>11} {:>9} {:>9}\n", name,
                         pattern, fct.size(), "background", "-", "-", "-", "-", "-", "-");
      continue;
    }
    std::sort(fct.begin(), fct.end());
    std::sort(rate.begin(), rate.end());
    out += fmt::format("  {:<20} {:>11} {:>7} {:>13.0f} {} {} {} {} {:>9.1f} {:>9.3f}\n", name, pattern,
                       fct.size(), bytes, us(start), us(report::quantile(fct, 0.5)),
                       us(report::quantile(fct, 0.99)), us(fct.back()), report::quantile(rate, 0.5),
                       *std::max_element(stretch.begin(), stretch.end()));
  }
  if (!traffic.collectives.empty())
    out += "#\n# a collective group is one operation: its flows column counts its ranks, its times are the\n"
           "# operation's (first rank's start to last rank's end), its rate nccl-tests' bus bandwidth\n";
  out += fmt::format("#\n# makespan: {:.2f} us (the last timed flow's or collective's end)\n",
                     r.makespan_s * 1e6);
  out += links_lines(r);
  return out;
}

std::string render_flows_csv(const input::Traffic& traffic, const run::TrafficResult& r) {
  std::string out =
      "group,pattern,src,dst,src_node,dst_node,bytes,start_s,end_s,fct_s,rate_gbps,uncongested_fct_s\n";
  const int per_node = std::max(1, r.gpus_per_node);
  for (std::size_t i = 0; i < traffic.flows.size(); ++i) {
    const auto& f = traffic.flows[i];
    const auto& group = traffic.groups[static_cast<std::size_t>(f.group)];
    const auto& t = r.flows[i];
    std::vector<std::string> cells = {group.name,
                                      std::string(input::traffic_pattern_name(group.pattern)),
                                      std::to_string(f.src),
                                      std::to_string(f.dst),
                                      std::to_string(f.src / per_node),
                                      std::to_string(f.dst / per_node)};
    if (group.background)
      cells.insert(cells.end(), {"", num(t.start_s), num(t.end_s), "", "", ""});
    else
      cells.insert(cells.end(),
                   {num(f.bytes), num(t.start_s), num(t.end_s), num(t.fct_s()),
                    num(t.fct_s() > 0 ? f.bytes * 8 / t.fct_s() / 1e9 : 0), num(t.uncongested_s)});
    out += planner::csv_line(cells);
  }
  return out;
}

std::string render_collectives_csv(const input::Traffic& traffic, const run::TrafficResult& r) {
  std::string out = "group,pattern,algorithm,protocol,ranks,nodes,bytes,start_s,end_s,time_s,algbw_gbps,"
                    "busbw_gbps,uncongested_time_s\n";
  for (std::size_t i = 0; i < traffic.collectives.size(); ++i) {
    const auto& c = traffic.collectives[i];
    const auto& group = traffic.groups[static_cast<std::size_t>(c.group)];
    const auto& t = r.collectives[i];
    const auto row = collective_row(traffic, r, i);
    out += planner::csv_line({group.name, std::string(input::traffic_pattern_name(group.pattern)),
                              c.algorithm, c.protocol, std::to_string(c.hosts.size()),
                              std::to_string(row.nodes), num(c.bytes), num(t.start_s), num(t.end_s),
                              num(row.time_s), num(row.algbw), num(row.busbw), num(t.uncongested_s)});
  }
  return out;
}

} // namespace dpusim::cli
