// Chrome trace-event JSON of one simulated iteration, for Perfetto or chrome://tracing: a process per
// node, a track per GPU compute stream, GPU communication stream and NIC; flow arrows joining the
// members of each communication (sender to receiver, around a ring); counters of each NIC's payload
// rate and, in a "cluster" process, the busy host cores per node (docs/reports.md).
#pragma once

#include "sim/engine/task_graph.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/topology/topology.hpp"

#include <string>
#include <vector>

namespace dpusim::report {

std::string render_trace(const plan::IterationPlan& plan, const std::vector<engine::TaskTiming>& timings,
                         const topology::Topology& topo, double tp_collective_s);
/// Writes atomically; throws std::runtime_error when the file cannot be written.
void write_trace(const std::string& path, const plan::IterationPlan& plan,
                 const std::vector<engine::TaskTiming>& timings, const topology::Topology& topo,
                 double tp_collective_s);

} // namespace dpusim::report
