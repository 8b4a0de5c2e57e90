// Chrome trace-event JSON of one simulated iteration, for Perfetto or chrome://tracing: a process per
// node, a track per GPU compute stream, GPU communication stream and NIC; flow arrows joining the
// members of each communication (sender to receiver, around a ring); counters of each NIC's payload
// rate; in a "cluster" process, the busy host cores per node; in a "fabric" process, the utilisation of
// the busiest fabric links (docs/reports.md).
#pragma once

#include "sim/engine/task_graph.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/link_usage.hpp"
#include "sim/topology/layout.hpp"

#include <string>
#include <vector>

namespace dpusim::report {

/// `fabric`: the links to draw a utilisation counter for (see fabric_loads), in that order.
std::string render_trace(const plan::IterationPlan& plan, const std::vector<engine::TaskTiming>& timings,
                         const topology::Topology& topo, double tp_collective_s,
                         const std::vector<LinkLoad>& fabric = {});
/// Writes atomically; throws std::runtime_error when the file cannot be written.
void write_trace(const std::string& path, const plan::IterationPlan& plan,
                 const std::vector<engine::TaskTiming>& timings, const topology::Topology& topo,
                 double tp_collective_s, const std::vector<LinkLoad>& fabric = {});

} // namespace dpusim::report
