#include "sim/metrics/iteration_metrics.hpp"

#include "sim/metrics/host_core_peak.hpp"
#include "sim/plan/iteration_plan.hpp"

#include <algorithm>
#include <map>

namespace dpusim::metrics {

namespace {

struct Group {
  double kernel_s = 0;
  double tp_s = 0;
  double ep_s = 0;
  double cp_s = 0;
  double cpu_stall_s = 0;
  double data_stall_s = 0;
  double last_backward_end = 0;
};

/// For every forward task fed by a loader: when its other predecessors had all finished.
std::map<engine::TaskId, double> ready_without_data(const plan::IterationPlan& plan,
                                                    const std::vector<engine::TaskTiming>& timings) {
  std::map<engine::TaskId, double> ready;
  for (std::size_t i = 0; i < plan.info.size(); ++i)
    if (plan.info[i].data_from >= 0)
      ready[static_cast<engine::TaskId>(i)] = 0;
  if (ready.empty())
    return ready;
  for (std::size_t i = 0; i < plan.graph.size(); ++i) {
    const auto id = static_cast<engine::TaskId>(i);
    for (auto s : plan.graph.successors(id)) {
      auto it = ready.find(s);
      if (it != ready.end() && plan.info[static_cast<std::size_t>(s)].data_from != id)
        it->second = std::max(it->second, timings[i].end);
    }
  }
  return ready;
}

} // namespace

IterationMetrics compute_metrics(const plan::IterationPlan& plan,
                                 const std::vector<engine::TaskTiming>& timings, const MetricsInputs& in) {
  using plan::TaskCategory;
  IterationMetrics m;
  m.tasks = plan.graph.size();
  m.step_time_s = timings.at(static_cast<std::size_t>(plan.end)).end;
  std::map<std::pair<int, int>, Group> groups;
  double hw_flops = 0;
  double model_flops = 0;
  std::map<int, double> dp_comm_by_stage; // reduction time of one communicator per stage
  std::map<int, double> dp_end_by_stage;
  plan::CpuUseSeconds host{};
  plan::CpuUseSeconds arm{};
  const auto ready = ready_without_data(plan, timings);
  for (std::size_t i = 0; i < plan.info.size(); ++i) {
    const auto& ti = plan.info[i];
    const auto& t = timings[i];
    // Background work books what it did before the iteration ended.
    const double scale =
        ti.weight *
        (plan.graph.task(static_cast<engine::TaskId>(i)).kind == engine::TaskKind::background ? t.done : 1.0);
    for (std::size_t u = 0; u < plan::kCpuUses; ++u) {
      host[u] += ti.host_core_s[u] * scale;
      arm[u] += ti.arm_core_s[u] * scale;
    }
    switch (ti.category) {
    case TaskCategory::forward:
    case TaskCategory::backward:
    case TaskCategory::optimizer: {
      auto& g = groups[{ti.dp, ti.stage}];
      const double tp = plan.tp_exposed_s(ti);
      const double ep = plan.ep_exposed_s(ti);
      const double cp = ti.cp_collectives * std::max(0.0, in.cp_collective_s - ti.cp_hide_s);
      g.ep_s += ep;
      g.cp_s += cp;
      g.kernel_s += ti.compute_s;
      g.tp_s += tp;
      // A compute task takes longer than its GPU work only when its launch threads were starved.
      g.cpu_stall_s += std::max(0.0, (t.end - t.start) - (ti.compute_s + tp + ep + cp));
      if (ti.data_from >= 0)
        g.data_stall_s += std::max(0.0, timings[static_cast<std::size_t>(ti.data_from)].end -
                                            ready.at(static_cast<engine::TaskId>(i)));
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
    m.data_stall_s = std::max(m.data_stall_s, g.data_stall_s);
  }
  if (busiest != nullptr) {
    m.compute_s = busiest->kernel_s;
    m.tp_comm_s = busiest->tp_s;
    m.ep_comm_s = busiest->ep_s;
    m.cp_comm_s = busiest->cp_s;
    m.host_cpu_stall_s = busiest->cpu_stall_s;
    m.dp_comm_s = dp_comm_by_stage[busiest_stage];
    m.dp_exposed_s = std::max(0.0, dp_end_by_stage[busiest_stage] - busiest->last_backward_end);
  }
  // Loads that produce the next iteration's first micro-batches end the step when they finish last:
  // the time the step runs past everything else is the next forward pass waiting for its data.
  double data_end = 0;
  double other_end = 0;
  for (std::size_t i = 0; i < plan.graph.size(); ++i)
    for (auto s : plan.graph.successors(static_cast<engine::TaskId>(i)))
      if (s == plan.end) {
        double& end = plan.info[i].category == TaskCategory::data_load ? data_end : other_end;
        end = std::max(end, timings[i].end);
      }
  if (data_end > other_end)
    m.data_stall_s += std::min(data_end, m.step_time_s) - other_end;
  m.exposed_comm_s = std::max(0.0, m.step_time_s - m.compute_s - m.data_stall_s - m.host_cpu_stall_s);
  for (std::size_t u = 0; u < plan::kCpuUses; ++u) {
    m.host_cpu_core_s += host[u];
    m.arm_core_s += arm[u];
  }
  if (m.step_time_s > 0) {
    const double per_node = m.step_time_s * std::max(1, in.nodes);
    m.host_cpu_busy_cores = m.host_cpu_core_s / per_node;
    m.host_cpu_peak_cores = peak_busy_host_cores(
        plan, timings, in.nodes, in.gpus_per_node > 0 ? in.gpus_per_node : in.gpus / std::max(1, in.nodes));
    for (std::size_t u = 0; u < plan::kCpuUses; ++u) {
      m.host_busy_cores_by_use[u] = host[u] / per_node;
      m.arm_busy_cores_by_use[u] = arm[u] / per_node;
    }
    if (in.arm_cores > 0)
      m.arm_utilisation = m.arm_core_s / per_node / in.arm_cores;
    m.tflops_per_gpu = hw_flops / m.step_time_s / in.gpus / 1e12;
    m.mfu = model_flops / m.step_time_s / in.gpus / in.peak_flops;
    m.tokens_per_s = in.tokens_per_iteration / m.step_time_s;
  }
  return m;
}

} // namespace dpusim::metrics
