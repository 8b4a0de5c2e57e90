// Small constructors for the tasks and task descriptions an iteration plan is made of.
#pragma once

#include "sim/plan/iteration_plan.hpp"

#include <string>
#include <utility>

namespace dpusim::plan {

inline engine::Task task_of(engine::TaskKind kind) {
  engine::Task t;
  t.kind = kind;
  return t;
}

inline TaskInfo make_info(TaskCategory category, std::string label) {
  TaskInfo i;
  i.category = category;
  i.label = std::move(label);
  return i;
}

} // namespace dpusim::plan
