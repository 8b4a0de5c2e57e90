// What the engine executes: a DAG of tasks over simulated resources. A task is work on hosts (GPU
// kernels, CPU cycles, engine throughput — each load occupies one core of its host), a transfer (flows
// of bytes between hosts, optionally coupled with work: all progress together at the bottleneck rate,
// like a pipelined ring or a TCP stream bound to a CPU core), or a pure delay. No SimGrid types here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dpusim::engine {

using HostIndex = std::int32_t;
using TaskId = std::int32_t;

/// Work on one core of a host, in the host's unit (seconds of one core/GPU/engine at full speed).
struct Load {
  HostIndex host = 0;
  double amount = 0;
};

/// Bytes from one host to another along the platform's route between them.
struct Flow {
  HostIndex src = 0;
  HostIndex dst = 0;
  double bytes = 0;
};

/// work: loads on hosts; transfer: flows (with optional loads) progressing together; delay: pure time;
/// join: nothing to simulate; background: loads and flows that run from the start of the graph for as long
/// as anything else does (infrastructure agents, other tenants' traffic) and are then stopped.
enum class TaskKind : std::uint8_t { work, transfer, delay, join, background };

struct Task {
  TaskKind kind = TaskKind::join;
  std::vector<Load> loads;
  std::vector<Flow> flows;
  double delay_s = 0;
  std::int32_t category = 0; // caller-defined (metrics use it)
  std::int32_t track = -1;   // caller-defined timeline track (trace)
  std::int32_t label = -1;   // caller-defined name index (trace)
};

class TaskGraph {
public:
  TaskId add(Task task);
  /// `after` starts only once `before` has finished.
  void depend(TaskId before, TaskId after);

  [[nodiscard]] std::size_t size() const { return tasks_.size(); }
  [[nodiscard]] const Task& task(TaskId id) const { return tasks_[static_cast<std::size_t>(id)]; }
  Task& mutable_task(TaskId id) { return tasks_[static_cast<std::size_t>(id)]; }
  [[nodiscard]] const std::vector<TaskId>& successors(TaskId id) const {
    return successors_[static_cast<std::size_t>(id)];
  }
  [[nodiscard]] int predecessor_count(TaskId id) const { return predecessors_[static_cast<std::size_t>(id)]; }
  [[nodiscard]] const std::vector<Task>& tasks() const { return tasks_; }
  /// Throws std::logic_error if the dependencies contain a cycle (a planner bug).
  void check_acyclic() const;

private:
  std::vector<Task> tasks_;
  std::vector<std::vector<TaskId>> successors_;
  std::vector<int> predecessors_;
};

struct TaskTiming {
  double start = -1; // seconds since the start of the graph's execution
  double end = -1;
  double done = 1; // fraction of the work completed (below 1 for a stopped background task)
};

} // namespace dpusim::engine
