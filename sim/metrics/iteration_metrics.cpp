#include "sim/metrics/iteration_metrics.hpp"

#include <algorithm>
#include <map>

namespace dpusim::metrics {

IterationMetrics compute_metrics(const plan::IterationPlan& plan,
                                 const std::vector<engine::TaskTiming>& timings, const MetricsInputs& in) {
  using plan::TaskCategory;
  IterationMetrics m;
  m.tasks = plan.graph.size();
  m.step_time_s = timings.at(static_cast<std::size_t>(plan.end)).end;
  struct Group {
    double kernel_s = 0;
    double tp_s = 0;
    double last_backward_end = 0;
  };
  std::map<std::pair<int, int>, Group> groups;
  double hw_flops = 0;
  double model_flops = 0;
  std::map<int, double> dp_comm_by_stage; // reduction time of one communicator per stage
  std::map<int, double> dp_end_by_stage;
  for (std::size_t i = 0; i < plan.info.size(); ++i) {
    const auto& ti = plan.info[i];
    const auto& t = timings[i];
    m.host_cpu_core_s += ti.cpu_core_s * ti.weight;
    switch (ti.category) {
    case TaskCategory::forward:
    case TaskCategory::backward:
    case TaskCategory::optimizer: {
      auto& g = groups[{ti.dp, ti.stage}];
      g.kernel_s += ti.compute_s;
      g.tp_s += ti.tp_collectives * in.tp_collective_s;
      if (ti.category == TaskCategory::backward)
        g.last_backward_end = std::max(g.last_backward_end, t.end);
      const auto n = static_cast<double>(ti.gpus.size());
      hw_flops += ti.hw_flops * n * ti.weight;
      model_flops += ti.model_flops * n * ti.weight;
      break;
    }
    case TaskCategory::dp_collective:
      if (ti.tp == 0) {
        const double start =
            ti.span_from >= 0 ? timings.at(static_cast<std::size_t>(ti.span_from)).start : t.start;
        dp_comm_by_stage[ti.stage] += t.end - start;
        dp_end_by_stage[ti.stage] = std::max(dp_end_by_stage[ti.stage], t.end);
      }
      break;
    default:
      break;
    }
  }
  const Group* busiest = nullptr;
  int busiest_stage = 0;
  for (const auto& [key, g] : groups) {
    if (busiest == nullptr || g.kernel_s > busiest->kernel_s) {
      busiest = &g;
      busiest_stage = key.second;
    }
  }
  if (busiest != nullptr) {
    m.compute_s = busiest->kernel_s;
    m.tp_comm_s = busiest->tp_s;
    m.dp_comm_s = dp_comm_by_stage[busiest_stage];
    m.dp_exposed_s = std::max(0.0, dp_end_by_stage[busiest_stage] - busiest->last_backward_end);
  }
  m.exposed_comm_s = std::max(0.0, m.step_time_s - m.compute_s);
  if (m.step_time_s > 0) {
    m.host_cpu_busy_cores = m.host_cpu_core_s / m.step_time_s / std::max(1, in.nodes);
    m.tflops_per_gpu = hw_flops / m.step_time_s / in.gpus / 1e12;
    m.mfu = model_flops / m.step_time_s / in.gpus / in.peak_flops;
    m.tokens_per_s = in.tokens_per_iteration / m.step_time_s;
  }
  return m;
}

} // namespace dpusim::metrics
