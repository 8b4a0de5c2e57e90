// What `dpusim traffic` prints and writes: a table of each group's flow completion times, the links
// that carried most and the ports that paused or marked most; flows.csv, one row per flow;
// collectives.csv, one row per collective group.
#pragma once

#include "sim/input/traffic_file.hpp"
#include "sim/run/traffic_run.hpp"

#include <string>

namespace dpusim::cli {

struct TrafficHeading {
  std::string scenario;
  std::string variant;
};

std::string render_traffic_table(const TrafficHeading& heading, const input::Traffic& traffic,
                                 const run::TrafficResult& result);
/// group, pattern, src, dst, src_node, dst_node, bytes, start_s, end_s, fct_s, rate_gbps,
/// uncongested_fct_s (background flows: their bytes, fct and rate empty, end the stop).
std::string render_flows_csv(const input::Traffic& traffic, const run::TrafficResult& result);
/// group, pattern, algorithm, protocol, ranks, nodes, bytes, start_s, end_s, time_s, algbw_gbps,
/// busbw_gbps, uncongested_time_s: one row per collective group (bandwidths as nccl-tests defines them,
/// in GB/s).
std::string render_collectives_csv(const input::Traffic& traffic, const run::TrafficResult& result);

} // namespace dpusim::cli
