#include "sim/plan/iteration_plan.hpp"

#include "models/workload/parallelism.hpp"

#include <fmt/format.h>

namespace dpusim::plan {

std::string_view category_name(TaskCategory c) {
  switch (c) {
  case TaskCategory::forward:
    return "forward";
  case TaskCategory::backward:
    return "backward";
  case TaskCategory::optimizer:
    return "optimizer";
  case TaskCategory::tp_collective:
    return "tp_collective";
  case TaskCategory::dp_collective:
    return "dp_collective";
  case TaskCategory::pp_transfer:
    return "pp_transfer";
  case TaskCategory::latency:
    return "latency";
  case TaskCategory::join:
    return "join";
  }
  return "?";
}

void IterationPlan::apply_probe(double tp_collective_s) {
  for (std::size_t i = 0; i < info.size(); ++i) {
    const auto& ti = info[i];
    if (ti.category != TaskCategory::forward && ti.category != TaskCategory::backward &&
        ti.category != TaskCategory::optimizer)
      continue;
    auto& task = graph.mutable_task(static_cast<engine::TaskId>(i));
    for (auto& load : task.loads)
      load.amount = ti.compute_s + ti.tp_collectives * tp_collective_s;
  }
}

namespace {

engine::Task task_of(engine::TaskKind kind) {
  engine::Task t;
  t.kind = kind;
  return t;
}

TaskInfo make_info(TaskCategory category, std::string label) {
  TaskInfo i;
  i.category = category;
  i.label = std::move(label);
  return i;
}

class Builder {
public:
  Builder(const scenario::WorkloadConfig& w, const std::vector<StageCosts>& costs,
          platform::PlatformBuilder& platform, CollectiveLowering& lowering)
      : w_(w), costs_(costs), platform_(platform), lowering_(lowering), p_(w.parallelism) {}

  IterationPlan build() {
    build_probe();
    const int dp = p_.dp;
    const int pp = p_.pp;
    const int m = w_.micro_batches();
    fwd_.assign(static_cast<std::size_t>(dp * pp),
                std::vector<engine::TaskId>(static_cast<std::size_t>(m), -1));
    bwd_first_ = fwd_;
    bwd_last_ = fwd_;
    chunks_.assign(static_cast<std::size_t>(dp * pp), {});
    last_.assign(static_cast<std::size_t>(dp * pp), -1);
    for (int d = 0; d < dp; ++d)
      for (int s = 0; s < pp; ++s)
        schedule_stage(d, s, m);
    for (int d = 0; d < dp; ++d)
      for (int s = 0; s + 1 < pp; ++s)
        for (int mb = 0; mb < m; ++mb)
          pipeline_transfers(d, s, mb);
    std::vector<engine::TaskId> finals;
    for (int s = 0; s < pp; ++s)
      gradient_reduction(s, finals);
    IterationPlan& plan = plan_;
    plan.end = add(task_of(engine::TaskKind::join), make_info(TaskCategory::join, "iteration end"));
    for (auto t : finals)
      plan.graph.depend(t, plan.end);
    return std::move(plan_);
  }

private:
  int group(int d, int s) const { return d * p_.pp + s; }
  std::vector<int> gpus_of(int d, int s) const { return workload::tp_group(p_, d, s); }

  engine::TaskId add(engine::Task t, TaskInfo i) {
    const auto id = plan_.graph.add(std::move(t));
    plan_.info.push_back(std::move(i));
    return id;
  }

  engine::TaskId compute(int d, int s, TaskInfo info) {
    engine::Task t = task_of(engine::TaskKind::work);
    info.dp = d;
    info.stage = s;
    info.gpus = gpus_of(d, s);
    for (int g : info.gpus)
      t.loads.push_back({platform_.gpu(g), info.compute_s});
    plan_.tp_collectives += info.tp_collectives * static_cast<int>(info.gpus.size() > 1 ? 1 : 0);
    const auto id = add(std::move(t), std::move(info));
    auto& prev = last_[static_cast<std::size_t>(group(d, s))];
    if (prev >= 0)
      plan_.graph.depend(prev, id); // one compute stream per GPU
    prev = id;
    return id;
  }

  /// A communication: a latency task, then the transfer. Returns {first, last}.
  std::pair<engine::TaskId, engine::TaskId> communication(const Lowered& low, TaskInfo info) {
    TaskInfo lat = info;
    lat.category = TaskCategory::latency;
    lat.label = info.label + " (latency)";
    lat.cpu_core_s = 0;
    engine::Task delay = task_of(engine::TaskKind::delay);
    delay.delay_s = low.latency_s;
    const auto first = add(std::move(delay), std::move(lat));
    engine::Task transfer = task_of(engine::TaskKind::transfer);
    transfer.flows = low.flows;
    transfer.loads = low.loads;
    info.nics = low.nics;
    info.cpu_core_s = low.cpu_core_s;
    const auto second = add(std::move(transfer), std::move(info));
    plan_.graph.depend(first, second);
    return {first, second};
  }

  void build_probe() {
    if (p_.tp < 2)
      return;
    const auto low = lowering_.ring(CollectiveKind::all_reduce, gpus_of(0, 0), costs_[0].tp_bytes);
    engine::Task delay = task_of(engine::TaskKind::delay);
    delay.delay_s = low.latency_s;
    const auto a = plan_.probe.add(std::move(delay));
    engine::Task transfer = task_of(engine::TaskKind::transfer);
    transfer.flows = low.flows;
    transfer.loads = low.loads;
    const auto b = plan_.probe.add(std::move(transfer));
    plan_.probe.depend(a, b);
    TaskInfo i = make_info(TaskCategory::latency, "tp all-reduce (latency)");
    i.gpus = gpus_of(0, 0);
    plan_.probe_info.push_back(i);
    i.category = TaskCategory::tp_collective;
    i.label = "tp all-reduce";
    i.bytes = costs_[0].tp_bytes;
    plan_.probe_info.push_back(i);
  }

  void schedule_stage(int d, int s, int m) {
    const auto& c = costs_[static_cast<std::size_t>(s)];
    const int warmup = std::min(p_.pp - s - 1, m);
    const auto g = static_cast<std::size_t>(group(d, s));
    auto forward = [&](int mb) {
      TaskInfo i = make_info(TaskCategory::forward, fmt::format("F{}", mb));
      i.micro = mb;
      i.compute_s = c.fwd_compute_s;
      i.tp_collectives = c.fwd_tp_collectives;
      fwd_[g][static_cast<std::size_t>(mb)] = compute(d, s, std::move(i));
    };
    const bool split_last = p_.dp > 1;
    // A micro-batch's FLOPs (forward, recomputation, backward) are booked on its backward tasks.
    auto backward = [&](int mb) {
      const double per_micro_hw = c.hw_flops;
      const double per_micro_model = c.model_flops;
      if (mb == m - 1 && split_last) {
        // The last micro-batch's backward produces the gradients: one task per bucket, so that each
        // bucket's all-reduce can start as soon as its gradients are complete.
        const auto nb = static_cast<int>(c.buckets.size());
        for (int k = 0; k < nb; ++k) {
          const auto& b = c.buckets[static_cast<std::size_t>(k)];
          TaskInfo i = make_info(TaskCategory::backward, fmt::format("B{} bucket {}/{}", mb, k + 1, nb));
          i.micro = mb;
          i.compute_s = b.compute_s;
          i.tp_collectives = b.tp_collectives;
          const double share = c.bwd_compute_s > 0 ? b.compute_s / c.bwd_compute_s : 1.0 / nb;
          i.hw_flops = per_micro_hw * share;
          i.model_flops = per_micro_model * share;
          const auto id = compute(d, s, std::move(i));
          chunks_[g].push_back(id);
          if (k == 0)
            bwd_first_[g][static_cast<std::size_t>(mb)] = id;
          bwd_last_[g][static_cast<std::size_t>(mb)] = id;
        }
        return;
      }
      TaskInfo i = make_info(TaskCategory::backward, fmt::format("B{}", mb));
      i.micro = mb;
      i.compute_s = c.bwd_compute_s;
      i.tp_collectives = c.bwd_tp_collectives;
      i.hw_flops = per_micro_hw;
      i.model_flops = per_micro_model;
      const auto id = compute(d, s, std::move(i));
      bwd_first_[g][static_cast<std::size_t>(mb)] = id;
      bwd_last_[g][static_cast<std::size_t>(mb)] = id;
      if (mb == m - 1)
        chunks_[g].push_back(id);
    };
    for (int mb = 0; mb < warmup; ++mb)
      forward(mb);
    for (int i = 0; i < m - warmup; ++i) {
      forward(warmup + i);
      backward(i);
    }
    for (int mb = m - warmup; mb < m; ++mb)
      backward(mb);
  }

  void pipeline_transfers(int d, int s, int mb) {
    const auto& c = costs_[static_cast<std::size_t>(s)];
    const auto from = gpus_of(d, s);
    const auto to = gpus_of(d, s + 1);
    for (int dir = 0; dir < 2; ++dir) {
      const bool forward = dir == 0;
      Lowered all;
      for (std::size_t j = 0; j < from.size(); ++j) {
        const auto low =
            forward ? lowering_.p2p(from[j], to[j], c.p2p_bytes) : lowering_.p2p(to[j], from[j], c.p2p_bytes);
        all.flows.insert(all.flows.end(), low.flows.begin(), low.flows.end());
        all.loads.insert(all.loads.end(), low.loads.begin(), low.loads.end());
        all.nics.insert(all.nics.end(), low.nics.begin(), low.nics.end());
        all.cpu_core_s += low.cpu_core_s;
        all.latency_s = std::max(all.latency_s, low.latency_s);
      }
      TaskInfo i = make_info(TaskCategory::pp_transfer,
                             fmt::format("{} mb{} stage {}->{}", forward ? "send act" : "send grad", mb,
                                         forward ? s : s + 1, forward ? s + 1 : s));
      i.dp = d;
      i.stage = s;
      i.micro = mb;
      i.gpus = from;
      i.gpus.insert(i.gpus.end(), to.begin(), to.end());
      i.bytes = c.p2p_bytes;
      const auto [first, last] = communication(all, std::move(i));
      const auto src_g = static_cast<std::size_t>(group(d, forward ? s : s + 1));
      const auto dst_g = static_cast<std::size_t>(group(d, forward ? s + 1 : s));
      const auto m_idx = static_cast<std::size_t>(mb);
      plan_.graph.depend(forward ? fwd_[src_g][m_idx] : bwd_last_[src_g][m_idx], first);
      plan_.graph.depend(last, forward ? fwd_[dst_g][m_idx] : bwd_first_[dst_g][m_idx]);
    }
  }

  void gradient_reduction(int s, std::vector<engine::TaskId>& finals) {
    const auto& c = costs_[static_cast<std::size_t>(s)];
    std::vector<std::vector<engine::TaskId>> group_deps(static_cast<std::size_t>(p_.dp));
    if (p_.dp > 1) {
      for (int j = 0; j < p_.tp; ++j) {
        const auto ranks = workload::dp_group(p_, j, s);
        engine::TaskId prev = -1;
        for (std::size_t k = 0; k < c.buckets.size(); ++k) {
          const auto low = lowering_.ring(CollectiveKind::all_reduce, ranks, c.buckets[k].bytes);
          TaskInfo i = make_info(TaskCategory::dp_collective,
                                 fmt::format("dp all-reduce bucket {}/{} tp{}", k + 1, c.buckets.size(), j));
          i.stage = s;
          i.tp = j;
          i.gpus = ranks;
          i.bytes = c.buckets[k].bytes;
          const auto [first, last] = communication(low, std::move(i));
          for (int d = 0; d < p_.dp; ++d) {
            const auto& ch = chunks_[static_cast<std::size_t>(group(d, s))];
            // Overlapped: waits for its own bucket; otherwise for the whole backward pass.
            plan_.graph.depend(w_.overlap_grad_reduce ? ch[std::min(k, ch.size() - 1)] : ch.back(), first);
          }
          if (prev >= 0)
            plan_.graph.depend(prev, first); // one communicator: buckets reduce in order
          prev = last;
        }
        for (int d = 0; d < p_.dp; ++d)
          group_deps[static_cast<std::size_t>(d)].push_back(prev);
      }
    }
    for (int d = 0; d < p_.dp; ++d) {
      TaskInfo i = make_info(TaskCategory::optimizer, "optimizer");
      i.compute_s = c.optimizer_s;
      const auto opt = compute(d, s, std::move(i));
      for (auto t : group_deps[static_cast<std::size_t>(d)])
        plan_.graph.depend(t, opt);
      finals.push_back(opt);
    }
    if (w_.distributed_optimizer && p_.dp > 1) {
      // Each rank updated its shard of the optimizer state: gather the updated 16-bit parameters.
      for (int j = 0; j < p_.tp; ++j) {
        const auto ranks = workload::dp_group(p_, j, s);
        const auto low = lowering_.ring(CollectiveKind::all_gather, ranks, c.params * 2.0);
        TaskInfo i = make_info(TaskCategory::dp_collective, fmt::format("dp param all-gather tp{}", j));
        i.stage = s;
        i.tp = j;
        i.gpus = ranks;
        i.bytes = c.params * 2.0;
        const auto [first, last] = communication(low, std::move(i));
        for (int d = 0; d < p_.dp; ++d)
          plan_.graph.depend(last_[static_cast<std::size_t>(group(d, s))], first);
        finals.push_back(last);
      }
    }
  }

  const scenario::WorkloadConfig& w_;
  const std::vector<StageCosts>& costs_;
  platform::PlatformBuilder& platform_;
  CollectiveLowering& lowering_;
  workload::Parallelism p_;
  IterationPlan plan_;
  std::vector<std::vector<engine::TaskId>> fwd_, bwd_first_, bwd_last_;
  std::vector<std::vector<engine::TaskId>> chunks_; // tasks of the last backward, in bucket order
  std::vector<engine::TaskId> last_;
};

} // namespace

IterationPlan build_iteration(const scenario::WorkloadConfig& w, const std::vector<StageCosts>& costs,
                              platform::PlatformBuilder& platform, CollectiveLowering& lowering) {
  return Builder(w, costs, platform, lowering).build();
}

} // namespace dpusim::plan
