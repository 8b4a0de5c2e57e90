#include "sim/engine/task_graph.hpp"

#include <stdexcept>

namespace dpusim::engine {

TaskId TaskGraph::add(Task task) {
  tasks_.push_back(std::move(task));
  successors_.emplace_back();
  predecessors_.push_back(0);
  return static_cast<TaskId>(tasks_.size() - 1);
}

void TaskGraph::depend(TaskId before, TaskId after) {
  if (before == after)
    throw std::logic_error("a task cannot depend on itself");
  successors_.at(static_cast<std::size_t>(before)).push_back(after);
  ++predecessors_.at(static_cast<std::size_t>(after));
}

void TaskGraph::check_acyclic() const {
  std::vector<int> pending = predecessors_;
  std::vector<TaskId> ready;
  for (std::size_t i = 0; i < tasks_.size(); ++i)
    if (pending[i] == 0)
      ready.push_back(static_cast<TaskId>(i));
  std::size_t seen = 0;
  while (!ready.empty()) {
    const TaskId t = ready.back();
    ready.pop_back();
    ++seen;
    for (TaskId s : successors_[static_cast<std::size_t>(t)])
      if (--pending[static_cast<std::size_t>(s)] == 0)
        ready.push_back(s);
  }
  if (seen != tasks_.size())
    throw std::logic_error("the task graph has a dependency cycle");
}

} // namespace dpusim::engine
