#include "sim/plan/iteration_plan.hpp"

#include "models/workload/parallelism.hpp"
#include "sim/plan/host_work.hpp"
#include "sim/plan/pipeline_schedule.hpp"
#include "sim/plan/plan_tasks.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <tuple>

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
  case TaskCategory::flow:
    return "flow";
  case TaskCategory::data_load:
    return "data_load";
  case TaskCategory::agent:
    return "agent";
  case TaskCategory::checkpoint:
    return "checkpoint";
  case TaskCategory::cross_traffic:
    return "cross_traffic";
  }
  return "?";
}

std::string_view cpu_use_name(CpuUse u) {
  switch (u) {
  case CpuUse::transport:
    return "transport";
  case CpuUse::storage:
    return "storage";
  case CpuUse::encryption:
    return "encryption";
  case CpuUse::vswitch:
    return "vswitch";
  case CpuUse::agents:
    return "agents";
  case CpuUse::data_loading:
    return "data_loading";
  case CpuUse::framework:
    return "framework";
  }
  return "?";
}

double TaskInfo::host_cpu_core_s() const {
  double s = 0;
  for (double x : host_core_s)
    s += x;
  return s;
}

double TaskInfo::arm_cpu_core_s() const {
  double s = 0;
  for (double x : arm_core_s)
    s += x;
  return s;
}

void IterationPlan::apply_probe(double tp_collective_s, double ep_collective_s, double cp_collective_s) {
  const auto each = workload::tp_each_s(tp_overlap_gemms, tp_overlap, tp_collective_s);
  tp_fwd_each_s = each.forward_s;
  tp_bwd_each_s = each.backward_s;
  ep_each_s = ep_collective_s;
  for (std::size_t i = 0; i < info.size(); ++i) {
    auto& ti = info[i];
    if (ti.category != TaskCategory::forward && ti.category != TaskCategory::backward &&
        ti.category != TaskCategory::optimizer)
      continue;
    // The first load is the GPU's; any others are its launch threads on the host.
    auto& task = graph.mutable_task(static_cast<engine::TaskId>(i));
    const double cp_each = std::max(0.0, cp_collective_s - ti.cp_hide_s);
    const double alone = ti.compute_s + tp_exposed_s(ti) + ti.cp_collectives * cp_each;
    if (ti.ep_step < 0) {
      task.loads.front().amount = alone + ep_exposed_s(ti);
      continue;
    }
    // A combined step: its parts scaled alike where its GPU work was drawn or slowed.
    const auto& step = combined_steps.at(static_cast<std::size_t>(ti.ep_step));
    const double scale = step.compute_s > 0 ? ti.compute_s / step.compute_s : 1.0;
    task.loads.front().amount = step.time_s(scale, tp_fwd_each_s, tp_bwd_each_s, cp_each, ep_collective_s);
    ti.ep_step_exposed_s = task.loads.front().amount - alone;
  }
}

namespace {

class Builder {
public:
  Builder(const scenario::WorkloadConfig& w, const std::vector<StageCosts>& costs,
          platform::RouteRegistry& routes, CollectiveLowering& lowering, bool representative,
          const HostSide& host, const std::vector<const IterationExtension*>& extensions)
      : w_(w), costs_(costs), routes_(routes), hosts_(routes.hosts()), lowering_(lowering), host_(host),
        extensions_(extensions), p_(w.parallelism), v_(w.virtual_stages), m_(w.micro_batches()),
        replicas_(representative ? 1 : w.parallelism.dp),
        zero3_(w.zero_stage >= 3 && w.parallelism.dp * w.parallelism.cp > 1),
        gather_in_forward_(w.zero_stage >= 1 && w.zero_stage < 3 && w.parallelism.dp * w.parallelism.cp > 1 &&
                           w.param_gather_overlapped()),
        algorithm_(parse_algorithm(w.collective_algorithm).value_or(CollectiveAlgorithm::ring)) {}

  IterationPlan build() {
    build_probes();
    plan_.tp_overlap_gemms = costs_.front().tp_overlap_gemms;
    plan_.tp_overlap = costs_.front().tp_overlap;
    plan_.simulated_replicas = replicas_;
    const auto groups = static_cast<std::size_t>(replicas_ * p_.pp);
    op_first_.assign(groups * static_cast<std::size_t>(v_ * m_ * 2), -1);
    op_last_ = op_first_;
    grad_ready_.assign(groups * static_cast<std::size_t>(v_), {});
    stream_last_.assign(groups, -1);
    stream_before_last_.assign(groups, -1);
    gather_last_.assign(groups, -1);
    scatter_last_.assign(groups, -1);
    chunk_order_.assign(static_cast<std::size_t>(p_.pp), {});
    shared_.assign(static_cast<std::size_t>(p_.pp), {});
    shared_next_.assign(groups, 0);
    data_slot_.assign(static_cast<std::size_t>(replicas_ * m_), -1);
    next_op_.assign(op_first_.size(), -1);
    std::vector<std::vector<PipelineOp>> schedules;
    for (int s = 0; s < p_.pp; ++s)
      schedules.push_back(stage_schedule(w_, s));
    for (int d = 0; d < replicas_; ++d)
      for (int s = 0; s < p_.pp; ++s) {
        // The ops of one step (a combined step's two) all wait for the next step's first.
        std::vector<std::size_t> step;
        bool joins_previous = false;
        for (const auto& op : schedules[static_cast<std::size_t>(s)]) {
          if (op.weight) // sends nothing and waits for none
            continue;
          const auto index = op_index(d, s, op.chunk, op.micro, op.forward);
          if (!joins_previous) {
            for (auto previous : step)
              next_op_[previous] = static_cast<std::int64_t>(index);
            step.clear();
          }
          step.push_back(index);
          joins_previous = op.with_next;
        }
      }
    for (int d = 0; d < replicas_; ++d)
      for (int s = 0; s < p_.pp; ++s) {
        const auto& ops = schedules[static_cast<std::size_t>(s)];
        for (std::size_t k = 0; k < ops.size(); ++k) {
          const auto& op = ops[k];
          if (op.weight)
            weight(d, s, op.chunk, op.micro);
          else if (op.with_next)
            combined(d, s, op, ops[++k]);
          else if (op.forward)
            forward(d, s, op.chunk, op.micro);
          else
            backward(d, s, op.chunk, op.micro, op.weight_later);
        }
      }
    for (int d = 0; d < replicas_; ++d)
      pipeline_transfers(d);
    std::vector<engine::TaskId> finals;
    for (int s = 0; s < p_.pp; ++s)
      gradient_reduction(s, finals);
    HostWork work(routes_, host_, plan_);
    const IterationContext ctx{host_, replicas_, [this](int d) { return replica_input(d); }, finals};
    for (const auto* extension : extensions_)
      extension->add_tasks(work, ctx);
    for (const auto* extension : extensions_)
      extension->shape(plan_, ctx);
    plan_.end = add(task_of(engine::TaskKind::join), make_info(TaskCategory::join, "iteration end"));
    for (auto t : finals)
      plan_.graph.depend(t, plan_.end);
    plan_.nccl_picks = lowering_.nccl_picks();
    return std::move(plan_);
  }

private:
  [[nodiscard]] int group(int d, int s) const { return d * p_.pp + s; }
  /// The GPUs that compute replica d's micro-batches on stage s: its tensor- and context-parallel ranks.
  [[nodiscard]] std::vector<int> gpus_of(int d, int s) const { return workload::replica_group(p_, d, s); }
  [[nodiscard]] const StageCosts& cost(int s, int chunk) const {
    return costs_[static_cast<std::size_t>(workload::virtual_stage_of(p_, v_, s, chunk))];
  }
  [[nodiscard]] std::size_t op_index(int d, int s, int chunk, int mb, bool fwd) const {
    return ((static_cast<std::size_t>(group(d, s)) * static_cast<std::size_t>(v_) +
             static_cast<std::size_t>(chunk)) *
                static_cast<std::size_t>(m_) +
            static_cast<std::size_t>(mb)) *
               2 +
           (fwd ? 0 : 1);
  }
  [[nodiscard]] double replica_weight() const { return static_cast<double>(p_.dp) / replicas_; }

  /// What replica d's input pipeline feeds: micro-batch k's slot and its first forward task.
  [[nodiscard]] ReplicaInput replica_input(int d) const {
    ReplicaInput in;
    in.replica = d;
    in.first_gpu = gpus_of(d, 0).front();
    in.micro_batch = w_.micro_batch;
    in.weight = replica_weight();
    for (int k = 0; k < m_; ++k) {
      in.slots.push_back(data_slot_[static_cast<std::size_t>(d * m_ + k)]);
      in.forwards.push_back(op_first_[op_index(d, 0, 0, k, true)]);
    }
    return in;
  }

  engine::TaskId add(engine::Task t, TaskInfo i) {
    const auto id = plan_.graph.add(std::move(t));
    plan_.info.push_back(std::move(i));
    return id;
  }

  /// GPU work on the tensor-parallel group (d, s), after the previous work of its compute stream. The
  /// group's GPUs run identical kernels in lockstep and nothing else runs on them, so the work is
  /// simulated on the group's first GPU and stands for all of them.
  /// When the host CPU is shared with other work, each GPU's launch thread (one core) must issue the
  /// task's `kernels`: it is coupled to the GPU work, which it slows when it cannot get its share.
  engine::TaskId compute(int d, int s, TaskInfo info, double kernels) {
    engine::Task t = task_of(engine::TaskKind::work);
    info.dp = d;
    info.stage = s;
    info.gpus = gpus_of(d, s);
    info.weight = replica_weight();
    t.loads.push_back({hosts_.gpu(info.gpus.front()), info.compute_s});
    if (host_.launch_s_per_kernel > 0 && kernels > 0) {
      const double launch = kernels * host_.launch_s_per_kernel;
      if (host_.couple_launch)
        for (int g : info.gpus)
          t.loads.push_back({hosts_.cpu_of_gpu(g), launch});
      info.host_core_s[static_cast<std::size_t>(CpuUse::framework)] =
          launch * static_cast<double>(info.gpus.size());
    }
    plan_.ep_collectives += info.ep_collectives;
    plan_.cp_collectives += info.cp_collectives;
    if (info.gpus.size() > 1)
      plan_.tp_collectives += info.tp_collectives;
    const auto id = add(std::move(t), std::move(info));
    auto& prev = stream_last_[static_cast<std::size_t>(group(d, s))];
    if (prev >= 0)
      plan_.graph.depend(prev, id);
    stream_before_last_[static_cast<std::size_t>(group(d, s))] = prev;
    prev = id;
    return id;
  }

  /// A communication: a latency task, then its parts (rings) side by side, then a join when there are
  /// several. The last task carries `info` and spans from the latency task. Returns {first, last}.
  std::pair<engine::TaskId, engine::TaskId> communication(const Lowered& low, TaskInfo info) {
    TaskInfo lat = info;
    lat.category = TaskCategory::latency;
    lat.label = info.label + " (latency)";
    lat.tail_steps = low.tail_steps;
    lat.tail_hops = low.tail_hops;
    engine::Task delay = task_of(engine::TaskKind::delay);
    delay.delay_s = low.latency_s;
    const auto first = add(std::move(delay), std::move(lat));
    std::vector<engine::TaskId> parts;
    for (const auto& part : low.parts) {
      engine::Task transfer = task_of(engine::TaskKind::transfer);
      transfer.flows = part.flows;
      transfer.loads = part.loads;
      TaskInfo pi = make_info(TaskCategory::flow, info.label);
      pi.weight = info.weight;
      for (const auto& f : part.flows) {
        for (int nic : routes_.route(f.src, f.dst).nics)
          pi.nics.push_back(nic);
      }
      const auto id = add(std::move(transfer), std::move(pi));
      plan_.graph.depend(first, id);
      parts.push_back(id);
    }
    info.nics = low.nics;
    info.span_from = first;
    // The communication's last task books the CPU work of all its parts.
    account_cpu(info, low);
    engine::TaskId last;
    if (parts.size() == 1) {
      last = parts.front();
      // The single part is the communication itself.
      plan_.info[static_cast<std::size_t>(last)] = std::move(info);
    } else {
      last = add(task_of(engine::TaskKind::join), std::move(info));
      for (auto p : parts)
        plan_.graph.depend(p, last);
      if (parts.empty())
        plan_.graph.depend(first, last);
    }
    return {first, last};
  }

  static void account_cpu(TaskInfo& info, const Lowered& low) {
    for (std::size_t f = 0; f < offload::kFunctions.size(); ++f) {
      info.host_core_s[f] += low.host_core_s[f];
      info.arm_core_s[f] += low.arm_core_s[f];
    }
  }

  /// A data-parallel collective of stage s for every tensor-parallel rank at once, after `after`; chained
  /// on the communicator `chain`. Each rank's collective is its own communicator's, so its rings are parts
  /// of their own: each progresses at its own bottleneck and takes its own share of a link it shares
  /// (one part for all of them would hold every rank to the slowest and give them one share together).
  /// `host_s`: work each rank does on the collective's critical path before it completes (ZeRO-3's
  /// per-peer copies).
  std::pair<engine::TaskId, engine::TaskId> dp_collective(CollectiveKind kind, int s, double bytes,
                                                          const std::string& label,
                                                          const std::vector<engine::TaskId>& after,
                                                          engine::TaskId& chain, double host_s = 0) {
    Lowered all;
    std::vector<int> gpus;
    for (int j = 0; j < p_.tp; ++j) {
      const auto ranks = workload::gradient_group(p_, j, s);
      all.merge(lowering_.collective(kind, algorithm_, ranks, bytes), false);
      gpus.insert(gpus.end(), ranks.begin(), ranks.end());
    }
    if (host_s > 0) {
      all.latency_s += host_s;
      if (!all.phases.empty())
        all.phases.front().latency_s += host_s;
    }
    // Phases (a hierarchical collective's) run one after the other.
    engine::TaskId first = -1;
    engine::TaskId last = -1;
    for (std::size_t p = 0; p < all.phase_count(); ++p) {
      TaskInfo i = make_info(TaskCategory::dp_collective,
                             all.phase_count() > 1 ? fmt::format("{} phase {}", label, p + 1) : label);
      i.stage = s;
      i.tp = 0;
      i.gpus = gpus;
      i.bytes = bytes;
      if (p == 0 && host_s > 0)
        i.host_core_s[static_cast<std::size_t>(CpuUse::framework)] +=
            host_s * static_cast<double>(gpus.size());
      const auto [f, l] = communication(all.phase(p), std::move(i));
      if (p == 0)
        first = f;
      else
        plan_.graph.depend(last, f);
      last = l;
    }
    for (auto t : after)
      plan_.graph.depend(t, first);
    if (chain >= 0)
      plan_.graph.depend(chain, first);
    chain = last;
    return {first, last};
  }

  /// A collective over stage s's whole data-parallel group that every replica's schedule reaches in the
  /// same order (ZeRO's parameter gathers and gradient reduce-scatters): replica 0 builds it, after its
  /// own `after`; every other replica joins it, which then also waits for that replica's `after`.
  /// Returns its {first, last} tasks.
  template <typename Build>
  std::pair<engine::TaskId, engine::TaskId> joined(int d, int s, const std::vector<engine::TaskId>& after,
                                                   Build&& build) {
    auto& shared = shared_[static_cast<std::size_t>(s)];
    if (d == 0) {
      shared.push_back(build(after));
      return shared.back();
    }
    auto& next = shared_next_[static_cast<std::size_t>(group(d, s))];
    const auto ids = shared.at(next++);
    for (auto t : after)
      plan_.graph.depend(t, ids.first);
    return ids;
  }

  /// The synchronous collectives fused into compute tasks, each simulated once alone on the platform
  /// and its duration reused: each model that has one builds its probe (sim/model/).
  void build_probes() {
    ProbeContext ctx{p_, costs_[0], lowering_, algorithm_, plan_};
    for (const auto* extension : extensions_)
      extension->add_probes(ctx);
  }

  /// Under ZeRO-3, one layer's parameters are all-gathered before it runs, prefetched one layer ahead:
  /// the gather for the next layer starts after the previous gather, once the layer before the one now
  /// computing has finished (so that at most two layers' parameters are gathered at a time).
  engine::TaskId gather_layer(int d, int s, double params, int tensors, const std::string& label) {
    const auto g = static_cast<std::size_t>(group(d, s));
    std::vector<engine::TaskId> after;
    // Without prefetch a layer's parameters are gathered only once the previous layer has finished.
    const auto wait_for = w_.param_gather_overlapped() ? stream_before_last_[g] : stream_last_[g];
    if (wait_for >= 0)
      after.push_back(wait_for);
    return joined(d, s, after,
                  [&](const std::vector<engine::TaskId>& a) {
                    return dp_collective(CollectiveKind::all_gather, s, params * w_.param_gather_bytes(),
                                         label, a, gather_last_[g], peer_copies(d, s, tensors));
                  })
        .second;
  }

  /// With per-peer buffers, a ZeRO-3 collective over n ranks hands the library one tensor per peer for
  /// each weight matrix, and every rank launches one copy per peer and matrix (out of the gathered buffer,
  /// into the buffer to reduce-scatter): the launch time on the collective's critical path.
  double peer_copies(int d, int s, int tensors) {
    if (!w_.zero_per_peer_buffers || tensors <= 0)
      return 0.0;
    const double launches = static_cast<double>(tensors) * p_.dp * p_.cp * host_.launch_s_per_kernel;
    if (d == 0 && s == 0) // one rank's: replica 0's first stage
      plan_.peer_copy_s += launches;
    return launches;
  }

  /// Weight matrices gathered with layer l of stage s (the embedding tables with the first layer and as
  /// the output head).
  static int layer_tensors(const StageCosts& c, int l) {
    if (l == c.layers)
      return c.embed_tensors;
    return c.at(l).tensors + (l == 0 && c.first ? c.embed_tensors : 0);
  }

  /// One combined step (the expert-parallel overlap's, or a DualPipeV pair): the forward `f` and the
  /// backward `b`, one task on the group's compute stream that waits for both passes' inputs and is timed
  /// by its CombinedStep (apply_probe); the backward's FLOPs are booked on it.
  void combined(int d, int s, const PipelineOp& f, const PipelineOp& b) {
    const auto& cf = cost(s, f.chunk);
    const auto& cb = cost(s, b.chunk);
    if (host_.data && s == 0 && f.chunk == 0)
      data_slot_[static_cast<std::size_t>(d * m_ + f.micro)] =
          stream_last_[static_cast<std::size_t>(group(d, s))];
    const auto key = std::pair{workload::virtual_stage_of(p_, v_, s, f.chunk),
                               workload::virtual_stage_of(p_, v_, s, b.chunk)};
    auto it = step_of_.find(key);
    if (it == step_of_.end()) {
      it = step_of_.emplace(key, static_cast<int>(plan_.combined_steps.size())).first;
      plan_.combined_steps.push_back(combined_step(cf, cb));
    }
    TaskInfo i = make_info(TaskCategory::backward,
                           v_ > 1 ? fmt::format("F{}.{}+B{}.{}", f.micro, f.chunk, b.micro, b.chunk)
                                  : fmt::format("F{}+B{}", f.micro, b.micro));
    i.micro = b.micro;
    i.fwd_micro = f.micro;
    i.ep_step = it->second;
    i.compute_s = cf.fwd_compute_s + cb.bwd_compute_s;
    i.tp_collectives = cf.fwd_tp_collectives + cb.bwd_tp_collectives;
    i.tp_bwd_collectives = cb.bwd_tp_bwd_collectives;
    i.ep_collectives = cf.fwd_ep_collectives + cb.bwd_ep_collectives;
    i.cp_collectives = cf.fwd_cp_collectives + cb.bwd_cp_collectives;
    i.cp_hide_s = cb.cp_hide_s;
    i.hw_flops = cb.hw_flops;
    i.model_flops = cb.model_flops;
    const double kernels =
        cf.layers_fwd_kernels() + cf.head_fwd_kernels + cb.layers_bwd_kernels() + cb.head_bwd_kernels;
    const auto id = compute(d, s, std::move(i), kernels);
    for (const bool fwd : {true, false}) {
      const auto& op = fwd ? f : b;
      op_first_[op_index(d, s, op.chunk, op.micro, fwd)] = id;
      op_last_[op_index(d, s, op.chunk, op.micro, fwd)] = id;
    }
  }

  void forward(int d, int s, int chunk, int mb) {
    const auto& c = cost(s, chunk);
    const std::string tag = v_ > 1 ? fmt::format("F{}.{}", mb, chunk) : fmt::format("F{}", mb);
    engine::TaskId first = -1;
    engine::TaskId last = -1;
    if (host_.data && s == 0 && chunk == 0)
      data_slot_[static_cast<std::size_t>(d * m_ + mb)] = stream_last_[static_cast<std::size_t>(group(d, s))];
    if (gather_in_forward_ && mb == 0) {
      std::tie(first, last) = forward_gathering(d, s, c, tag);
    } else if (!zero3_) {
      TaskInfo i = make_info(TaskCategory::forward, tag);
      i.micro = mb;
      i.compute_s = c.fwd_compute_s;
      i.tp_collectives = c.fwd_tp_collectives;
      i.ep_collectives = c.fwd_ep_collectives;
      i.cp_collectives = c.fwd_cp_collectives;
      i.cp_hide_s = c.cp_hide_s;
      first = last = compute(d, s, std::move(i), c.layers_fwd_kernels() + c.head_fwd_kernels);
    } else {
      for (int l = 0; l < c.layers + (c.last ? 1 : 0); ++l) {
        const bool head = l == c.layers;
        const double params =
            head ? c.embed_params : c.at(l).params + (l == 0 && c.first ? c.embed_params : 0.0);
        const auto gathered =
            gather_layer(d, s, params, layer_tensors(c, l), fmt::format("{} gather params {}", tag, l));
        TaskInfo i = make_info(TaskCategory::forward, fmt::format("{} layer {}", tag, l));
        i.micro = mb;
        i.compute_s = head ? c.head_fwd_s : c.at(l).fwd_s;
        i.tp_collectives = head ? 0 : c.at(l).fwd_tp;
        i.ep_collectives = head ? 0 : c.at(l).fwd_ep;
        i.cp_collectives = head ? 0 : c.at(l).fwd_cp;
        i.cp_hide_s = c.cp_hide_s;
        const auto id = compute(d, s, std::move(i), head ? c.head_fwd_kernels : c.at(l).fwd_kernels);
        plan_.graph.depend(gathered, id);
        if (first < 0)
          first = id;
        last = id;
      }
    }
    op_first_[op_index(d, s, chunk, mb, true)] = first;
    op_last_[op_index(d, s, chunk, mb, true)] = last;
  }

  /// The first micro-batch's forward through a chunk under ZeRO-1/2 with overlap_param_gather
  /// (Megatron-Core's distributed optimizer): the updated parameters are all-gathered bucket by bucket, in
  /// forward order. The chunk's first forward pre-hook dispatches the first bucket's gather and waits for
  /// it; each later bucket's is dispatched once the previous one has been waited for, as the part of the
  /// forward that uses the previous bucket starts. With align_param_gather every stage dispatches all its
  /// chunks' gathers at the iteration's start instead, in chunk order: each only after the one before.
  /// Returns the part's {first, last} tasks.
  std::pair<engine::TaskId, engine::TaskId> forward_gathering(int d, int s, const StageCosts& c,
                                                              const std::string& tag) {
    const auto g = static_cast<std::size_t>(group(d, s));
    const auto nb = c.buckets.size();
    engine::TaskId first = -1;
    engine::TaskId last = -1;
    engine::TaskId before_previous = stream_last_[g]; // the stream's task before the previous part
    for (std::size_t k = 0; k < nb; ++k) {
      const auto& b = c.buckets[nb - 1 - k];
      const auto before = before_previous;
      before_previous = stream_last_[g];
      std::pair<engine::TaskId, engine::TaskId> gathered{-1, -1};
      if (b.params > 0) {
        std::vector<engine::TaskId> after;
        if (before >= 0 && !w_.align_param_gather)
          after.push_back(before);
        gathered = joined(d, s, after, [&](const std::vector<engine::TaskId>& a) {
          return dp_collective(CollectiveKind::all_gather, s, b.params * w_.param_gather_bytes(),
                               fmt::format("{} gather params {}/{}", tag, k + 1, nb), a, gather_last_[g]);
        });
      }
      TaskInfo i =
          make_info(TaskCategory::forward, nb > 1 ? fmt::format("{} part {}/{}", tag, k + 1, nb) : tag);
      i.micro = 0;
      i.compute_s = b.fwd_compute_s;
      i.tp_collectives = b.fwd_tp_collectives;
      i.ep_collectives = b.fwd_ep_collectives;
      i.cp_collectives = b.fwd_cp_collectives;
      i.cp_hide_s = c.cp_hide_s;
      const auto id = compute(d, s, std::move(i), b.fwd_kernels);
      if (gathered.second >= 0)
        plan_.graph.depend(gathered.second, id);
      if (first < 0) // what the forward waits for (its input) holds up the first gather too
        first = gathered.first >= 0 && !w_.align_param_gather ? gathered.first : id;
      last = id;
    }
    return {first, last};
  }

  /// A task of a backward pass of chunk `c` for micro-batch `mb`: `seconds` of its GPU work with the
  /// collectives given. A micro-batch's FLOPs (forward, recomputation, backward) are booked on its
  /// backward tasks, in proportion to their time.
  engine::TaskId backward_task(int d, int s, const StageCosts& c, int mb, std::string label, double seconds,
                               int tp, int tp_bwd, int ep, int cp) {
    const double per_s_hw = c.bwd_compute_s > 0 ? c.hw_flops / c.bwd_compute_s : 0.0;
    const double per_s_model = c.bwd_compute_s > 0 ? c.model_flops / c.bwd_compute_s : 0.0;
    const double per_s_kernels =
        c.bwd_compute_s > 0 ? (c.layers_bwd_kernels() + c.head_bwd_kernels) / c.bwd_compute_s : 0.0;
    TaskInfo i = make_info(TaskCategory::backward, std::move(label));
    i.micro = mb;
    i.compute_s = seconds;
    i.tp_collectives = tp;
    i.tp_bwd_collectives = tp_bwd;
    i.ep_collectives = ep;
    i.cp_collectives = cp;
    i.cp_hide_s = c.cp_hide_s;
    i.hw_flops = per_s_hw * seconds;
    i.model_flops = per_s_model * seconds;
    return compute(d, s, std::move(i), per_s_kernels * seconds);
  }

  /// Whether the last backward of each chunk completes gradient buckets that the data-parallel group
  /// reduces.
  [[nodiscard]] bool reduces_buckets() const { return p_.dp * p_.cp > 1 && !zero3_; }

  /// The chunk's last backward produces its gradients: one task per bucket, so that each bucket's
  /// reduction can start as soon as its gradients are complete. `weights_only`: the buckets' weight
  /// gradients alone (a zero-bubble schedule's weight op). Returns the {first, last} tasks.
  std::pair<engine::TaskId, engine::TaskId> bucket_tasks(int d, int s, int chunk, int mb,
                                                         const std::string& tag, bool weights_only) {
    const auto& c = cost(s, chunk);
    const auto g = static_cast<std::size_t>(group(d, s));
    const auto nb = static_cast<int>(c.buckets.size());
    auto& ready = grad_ready_[g * static_cast<std::size_t>(v_) + static_cast<std::size_t>(chunk)];
    engine::TaskId first = -1;
    engine::TaskId last = -1;
    for (int k = 0; k < nb; ++k) {
      const auto& b = c.buckets[static_cast<std::size_t>(k)];
      const auto label = fmt::format("{} bucket {}/{}", tag, k + 1, nb);
      const auto id = weights_only ? backward_task(d, s, c, mb, label, b.wgrad_s, 0, 0, 0, 0)
                                   : backward_task(d, s, c, mb, label, b.compute_s, b.tp_collectives,
                                                   b.tp_bwd_collectives, b.ep_collectives, b.cp_collectives);
      ready.push_back(id);
      if (first < 0)
        first = id;
      last = id;
    }
    if (d == 0)
      chunk_order_[static_cast<std::size_t>(s)].push_back(chunk);
    return {first, last};
  }

  /// `weight_later`: a zero-bubble backward, which computes its input gradients only (its weight op
  /// follows).
  void backward(int d, int s, int chunk, int mb, bool weight_later = false) {
    const auto& c = cost(s, chunk);
    const auto g = static_cast<std::size_t>(group(d, s));
    const std::string tag = v_ > 1 ? fmt::format("B{}.{}", mb, chunk) : fmt::format("B{}", mb);
    engine::TaskId first = -1;
    engine::TaskId last = -1;
    const bool final_backward = mb == m_ - 1;
    if (zero3_) {
      // Layers in reverse, each gathered again, its gradients reduce-scattered right after.
      for (int l = c.layers - (c.last ? 0 : 1); l >= 0; --l) {
        const bool head = l == c.layers;
        const double params =
            head ? c.embed_params : c.at(l).params + (l == 0 && c.first ? c.embed_params : 0.0);
        const auto gathered =
            gather_layer(d, s, params, layer_tensors(c, l), fmt::format("{} gather params {}", tag, l));
        const auto id = backward_task(d, s, c, mb, fmt::format("{} layer {}", tag, l),
                                      head ? c.head_bwd_s : c.at(l).bwd_s, head ? 0 : c.at(l).bwd_tp,
                                      head ? 0 : c.at(l).bwd_tp_bwd, head ? 0 : c.at(l).bwd_ep,
                                      head ? 0 : c.at(l).bwd_cp);
        plan_.graph.depend(gathered, id);
        joined(d, s, {id}, [&](const std::vector<engine::TaskId>& a) {
          return dp_collective(CollectiveKind::reduce_scatter, s, params * w_.grad_bytes_per_param,
                               fmt::format("{} reduce-scatter grads {}", tag, l), a, scatter_last_[g],
                               peer_copies(d, s, layer_tensors(c, l)));
        });
        if (first < 0)
          first = id;
        last = id;
      }
    } else if (final_backward && reduces_buckets() && !weight_later) {
      std::tie(first, last) = bucket_tasks(d, s, chunk, mb, tag, false);
    } else {
      first = last =
          backward_task(d, s, c, mb, weight_later ? tag + " input gradients" : tag,
                        c.bwd_compute_s - (weight_later ? c.bwd_wgrad_s : 0.0), c.bwd_tp_collectives,
                        c.bwd_tp_bwd_collectives, c.bwd_ep_collectives, c.bwd_cp_collectives);
    }
    op_first_[op_index(d, s, chunk, mb, false)] = first;
    op_last_[op_index(d, s, chunk, mb, false)] = last;
  }

  /// A zero-bubble schedule's weight op: the weight gradients of chunk `chunk`'s backward of micro-batch
  /// `mb`, which computed its input gradients earlier; the last one completes the chunk's buckets.
  void weight(int d, int s, int chunk, int mb) {
    const auto& c = cost(s, chunk);
    const std::string tag = fmt::format("W{}.{}", mb, chunk);
    if (mb == m_ - 1 && reduces_buckets())
      bucket_tasks(d, s, chunk, mb, tag, true);
    else
      backward_task(d, s, c, mb, tag, c.bwd_wgrad_s, 0, 0, 0, 0);
  }

  void pipeline_transfers(int d) {
    if (p_.pp * v_ < 2)
      return;
    // Each virtual stage's outputs to the next one's GPUs (interleaved: the next stage, or from the last
    // stage to the first stage's next chunk; in a V, the last stage's second chunk follows its first).
    for (int s = 0; s < p_.pp; ++s)
      for (int chunk = 0; chunk < v_; ++chunk) {
        const int vs = workload::virtual_stage_of(p_, v_, s, chunk);
        if (vs + 1 >= p_.pp * v_)
          continue;
        const int ns = workload::stage_of_virtual(p_, v_, vs + 1);
        const int nc = workload::chunk_of_virtual(p_, v_, vs + 1);
        const auto& c = cost(s, chunk);
        for (int mb = 0; mb < m_; ++mb) {
          if (ns == s) { // on the same GPUs: the next chunk's pass waits for this one, nothing is sent
            plan_.graph.depend(op_last_[op_index(d, s, chunk, mb, true)],
                               op_first_[op_index(d, s, nc, mb, true)]);
            plan_.graph.depend(op_last_[op_index(d, s, nc, mb, false)],
                               op_first_[op_index(d, s, chunk, mb, false)]);
            continue;
          }
          transfer(d, s, chunk, ns, nc, mb, c.p2p_bytes, true);
          transfer(d, ns, nc, s, chunk, mb, c.p2p_bytes, false);
        }
      }
  }

  /// Activations (forward) or their gradients (backward) from (s, chunk) to (ns, nc).
  void transfer(int d, int s, int chunk, int ns, int nc, int mb, double bytes, bool fwd) {
    const auto from = gpus_of(d, s);
    const auto to = gpus_of(d, ns);
    Lowered all;
    for (std::size_t j = 0; j < from.size(); ++j)
      all.merge(lowering_.p2p(from[j], to[j], bytes), true);
    TaskInfo i = make_info(TaskCategory::pp_transfer,
                           fmt::format("{} mb{} stage {}->{}", fwd ? "send act" : "send grad", mb, s, ns));
    i.dp = d;
    i.stage = s;
    i.micro = mb;
    i.gpus = from;
    i.gpus.insert(i.gpus.end(), to.begin(), to.end());
    i.bytes = bytes;
    i.weight = replica_weight();
    const auto [first, last] = communication(all, std::move(i));
    const auto sender = op_index(d, s, chunk, mb, fwd);
    plan_.graph.depend(op_last_[sender], first);
    plan_.graph.depend(last, op_first_[op_index(d, ns, nc, mb, fwd)]);
    // Without overlap the sender's next operation waits for the send (a blocking send/receive pair).
    if (!w_.overlap_p2p && next_op_[sender] >= 0)
      plan_.graph.depend(last, op_first_[static_cast<std::size_t>(next_op_[sender])]);
  }

  void gradient_reduction(int s, std::vector<engine::TaskId>& finals) {
    std::vector<engine::TaskId> reduced; // the last reduction task of stage s
    if (p_.dp * p_.cp > 1 && !zero3_) {
      // Gradients are summed over the replicas (all-reduce), or each rank keeps its shard (reduce-scatter,
      // ZeRO-1/2). Buckets go in the order their gradients become ready; one communicator per stage.
      const auto kind = w_.zero_stage >= 1 ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce;
      engine::TaskId chain = -1;
      for (int chunk : chunk_order_[static_cast<std::size_t>(s)]) {
        const auto& c = cost(s, chunk);
        for (std::size_t k = 0; k < c.buckets.size(); ++k) {
          std::vector<engine::TaskId> after;
          for (int d = 0; d < replicas_; ++d) {
            const auto& ready =
                grad_ready_[static_cast<std::size_t>(group(d, s)) * static_cast<std::size_t>(v_) +
                            static_cast<std::size_t>(chunk)];
            // Overlapped: waits for its own bucket; otherwise for the whole backward pass.
            after.push_back(w_.overlap_grad_reduce ? ready[k]
                                                   : stream_last_[static_cast<std::size_t>(group(d, s))]);
          }
          const std::string label =
              fmt::format("dp {} chunk {} bucket {}/{}",
                          kind == CollectiveKind::all_reduce ? "all-reduce" : "reduce-scatter", chunk, k + 1,
                          c.buckets.size());
          dp_collective(kind, s, c.buckets[k].bytes, label, after, chain);
        }
      }
      if (chain >= 0)
        reduced.push_back(chain);
    }
    for (int d = 0; d < replicas_; ++d) {
      const auto g = static_cast<std::size_t>(group(d, s));
      if (scatter_last_[g] >= 0)
        reduced.push_back(scatter_last_[g]);
    }
    double optimizer_s = 0;
    double params = 0;
    for (int chunk = 0; chunk < v_; ++chunk) {
      optimizer_s += cost(s, chunk).optimizer_s;
      params += cost(s, chunk).params;
    }
    std::vector<engine::TaskId> optimizers;
    for (int d = 0; d < replicas_; ++d) {
      TaskInfo i = make_info(TaskCategory::optimizer, "optimizer");
      i.compute_s = optimizer_s;
      const auto opt = compute(d, s, std::move(i), 4.0 * v_); // fused multi-tensor Adam kernels
      for (auto t : reduced)
        plan_.graph.depend(t, opt);
      optimizers.push_back(opt);
      finals.push_back(opt);
    }
    if (w_.zero_stage >= 1 && w_.zero_stage < 3 && p_.dp * p_.cp > 1 && !gather_in_forward_) {
      // Each rank updated its shard of the parameters: gather the updated 16-bit parameters.
      engine::TaskId chain = -1;
      finals.push_back(dp_collective(CollectiveKind::all_gather, s, params * w_.param_gather_bytes(),
                                     "dp param all-gather", optimizers, chain)
                           .second);
    }
  }

  const scenario::WorkloadConfig& w_;
  const std::vector<StageCosts>& costs_;
  platform::RouteRegistry& routes_;
  const platform::HostMap& hosts_;
  CollectiveLowering& lowering_;
  const HostSide& host_;
  const std::vector<const IterationExtension*>& extensions_;
  workload::Parallelism p_;
  int v_;
  int m_;
  int replicas_;
  bool zero3_;
  bool gather_in_forward_; // ZeRO-1/2 gather the updated parameters during the first forward
  CollectiveAlgorithm algorithm_;
  std::map<std::pair<int, int>, int> step_of_; // (forward's, backward's virtual stage) -> combined step
  IterationPlan plan_;
  std::vector<engine::TaskId> op_first_, op_last_;      // by op_index
  std::vector<std::int64_t> next_op_;                   // by op_index: the stage's next op, -1 for none
  std::vector<std::vector<engine::TaskId>> grad_ready_; // by group * v + chunk: task completing each bucket
  std::vector<engine::TaskId> stream_last_;             // by group: last task of the compute stream
  std::vector<engine::TaskId> stream_before_last_;      // by group: the one before it
  std::vector<engine::TaskId> gather_last_;             // by group: ZeRO-3 parameter gathers, in order
  std::vector<engine::TaskId> scatter_last_;            // by group: ZeRO-3 gradient reduce-scatters, in order
  std::vector<std::vector<std::pair<engine::TaskId, engine::TaskId>>> shared_; // by stage: joined()
  std::vector<std::size_t> shared_next_;      // by group: its stage's next shared collective
  std::vector<std::vector<int>> chunk_order_; // by stage: chunks in the order their gradients complete
  std::vector<engine::TaskId> data_slot_;     // by replica * m + micro-batch: the task before its forward
};

} // namespace

IterationPlan build_iteration(const scenario::WorkloadConfig& w, const std::vector<StageCosts>& costs,
                              platform::RouteRegistry& routes, CollectiveLowering& lowering,
                              bool representative, const HostSide& host,
                              const std::vector<const IterationExtension*>& extensions) {
  return Builder(w, costs, routes, lowering, representative, host, extensions).build();
}

IterationPlan build_host_tasks(platform::RouteRegistry& routes, const HostSide& host,
                               const std::vector<const IterationExtension*>& extensions) {
  IterationPlan plan;
  std::vector<engine::TaskId> finals;
  HostWork work(routes, host, plan);
  const IterationContext ctx{host, 0, [](int) { return ReplicaInput{}; }, finals};
  for (const auto* extension : extensions)
    extension->add_tasks(work, ctx);
  plan.end = work.add(task_of(engine::TaskKind::join), make_info(TaskCategory::join, "iteration end"));
  for (auto t : finals)
    plan.graph.depend(t, plan.end);
  return plan;
}

} // namespace dpusim::plan
