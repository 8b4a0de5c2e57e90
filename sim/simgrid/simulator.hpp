// The only place that talks to SimGrid (S4U). It builds the platform from a PlatformDecl and executes
// task graphs as SimGrid activities with the parallel-task (ptask_L07) model: sequential executions
// for single loads, parallel executions for transfers and coupled work, and pure delays as kernel timers.
// SimGrid's Engine is a process-wide singleton, so there is one Simulator per process.
#pragma once

#include "sim/engine/platform_decl.hpp"
#include "sim/engine/task_graph.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace dpusim::simgrid {

struct ExecutionStats {
  std::size_t activities = 0; // SimGrid activities created
  double wall_seconds = 0;    // real time spent in SimGrid
};

class Simulator {
public:
  /// Progress callback: (tasks finished, tasks in the graph).
  using Progress = std::function<void(std::size_t, std::size_t)>;

  explicit Simulator(const engine::PlatformDecl& platform);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  /// Whether the platform's flapping links (PlatformDecl::flaps) go down during an execution: during an
  /// iteration, not during a probe whose duration is reused for many collectives.
  enum class Flaps { apply, none };

  /// Runs the graph to completion; times are relative to the start of this call's simulated time, and so
  /// are the flapping links' periods. May be called several times (phases); each starts when the
  /// previous one has finished.
  std::vector<engine::TaskTiming> execute(const engine::TaskGraph& graph, const Progress& progress = {},
                                          Flaps flaps = Flaps::apply);
  [[nodiscard]] const ExecutionStats& stats() const { return stats_; }

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  ExecutionStats stats_;
};

} // namespace dpusim::simgrid
