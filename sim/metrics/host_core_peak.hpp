// The most host cores a node keeps busy at once during the step: what a host CPU must be sized for, where
// the step's average (host_cpu_busy_cores) hides the bursts of the gradient reduction or a checkpoint.
#pragma once

#include "sim/engine/task_graph.hpp"
#include "sim/plan/iteration_plan.hpp"

#include <vector>

namespace dpusim::metrics {

/// Each task's host core-seconds spread evenly over its span (from its latency task's start where its
/// host work covers the whole communication, as the trace draws it; a background task's done part) and
/// over the nodes of its GPUs (`gpus_per_node` GPUs a node); the largest sum of rates on one node at one
/// time. Tasks of no GPU (a node's infrastructure agents, which run throughout) are spread over every
/// node and added at their own peak: exact where their load is steady, else an upper bound. A task
/// standing for several data-parallel replicas loads its own nodes once: the others are on other nodes.
double peak_busy_host_cores(const plan::IterationPlan& plan, const std::vector<engine::TaskTiming>& timings,
                            int nodes, int gpus_per_node);

} // namespace dpusim::metrics
