#include "sim/estimate/step_estimator.hpp"

#include "models/workload/layer_kinds.hpp"
#include "sim/estimate/input_estimate.hpp"
#include "sim/plan/combined_step.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/scenario/gpu_compute.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace dpusim::estimate {

namespace {

double launch_s(const scenario::Hardware& hw) {
  return hw.cpu.kernel_launch_cpu ? hw.cpu.kernel_launch_cpu->value.si() : 0.0;
}

} // namespace

StepEstimator::StepEstimator(const scenario::Scenario& s, const scenario::Hardware& hw)
    : s_(s), w_(s.workload), p_(s.workload.parallelism), hw_(hw),
      path_(s.variants.front(), s.cluster.services, hw),
      layout_(scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch,
                                       hw.storage_nic ? &*hw.storage_nic : nullptr)),
      comm_(layout_, hw, path_, s.cluster.fabric.routing),
      algo_(plan::parse_algorithm(w_.collective_algorithm).value_or(CollectiveAlgorithm::ring)),
      nccl_(algo_ == CollectiveAlgorithm::tuned
                ? std::make_unique<NcclCommCosts>(layout_, hw, path_, s.cluster.fabric.routing)
                : nullptr),
      collectives_(p_, layout_.node.gpus, comm_, nccl_.get(), algo_),
      zero3_chains_(w_, collectives_, launch_s(hw)), v_(w_.virtual_stages), m_(w_.micro_batches()),
      chunks_(p_.pp * w_.virtual_stages), zero3_(w_.zero_stage >= 3 && p_.dp * p_.cp > 1),
      reduce_(p_.dp * p_.cp > 1 && !zero3_),
      // ZeRO-1/2 with overlap_param_gather: the updated parameters are gathered bucket by bucket during
      // each chunk's first forward (sim/plan/iteration_plan.cpp, forward_gathering), not after the step.
      gather_in_forward_(w_.zero_stage >= 1 && w_.zero_stage < 3 && p_.dp * p_.cp > 1 &&
                         w_.param_gather_overlapped()) {
  cost_stages();
  cost_model_parallel_collectives();
  cost_sends();
  for (int st = 0; st < p_.pp; ++st)
    ops_.push_back(plan::stage_schedule(w_, st));
  stages_.resize(static_cast<std::size_t>(p_.pp));
  fwd_end_.assign(static_cast<std::size_t>(chunks_) * static_cast<std::size_t>(m_), -1.0);
  bwd_end_ = fwd_end_;
  bucket_ready_.resize(static_cast<std::size_t>(chunks_));
  // The input pipeline of each replica (sim/model/input_pipeline).
  load_s_ = w_.data ? input_load_s(s, hw, path_, layout_) : 0.0;
  load_end_.assign(static_cast<std::size_t>(m_), 0.0);
}

// A virtual stage's costs depend only on its layers (how many, of which kinds) and on whether it holds
// the embedding or the head — and, under uneven expert routing, on which layers they are (each draws its
// own load): computed once per kind (a deep pipeline has a handful, not pp x virtual_stages).
void StepEstimator::cost_stages() {
  const auto gpu = scenario::gpu_compute(hw_);
  std::map<std::tuple<std::vector<int>, bool, bool, int>, plan::StageCosts> kinds;
  const bool layers_differ = w_.model.moe() && w_.routing && w_.routing->uneven();
  for (int vs = 0; vs < chunks_; ++vs) {
    auto layer_kinds = workload::chunk_layer_kinds(w_.model, p_, v_, vs);
    const std::tuple<std::vector<int>, bool, bool, int> kind{
        std::move(layer_kinds), vs == 0, vs == chunks_ - 1,
        layers_differ ? workload::chunk_first_layer(p_, w_.model.layers, v_, vs) : -1};
    auto it = kinds.find(kind);
    if (it == kinds.end())
      it = kinds.emplace(kind, plan::stage_costs(w_, gpu, vs)).first;
    costs_.push_back(it->second);
    costs_.back().stage = vs;
  }
}

// One tensor-, context- and expert-parallel collective of the first stage, each alone: what every fused
// one adds to its task.
void StepEstimator::cost_model_parallel_collectives() {
  const auto& first = costs_.front();
  const auto collective_cost = [&](CollectiveKind k, CollectiveAlgorithm a, const std::vector<int>& group,
                                   double bytes) {
    return a == CollectiveAlgorithm::tuned ? nccl_->collective(k, nccl_->choice(k, group, bytes), {group})
                                           : comm_.collective(k, a, {group});
  };
  if (p_.tp > 1 && first.tp_bytes > 0)
    e_.tp_collective_s = collective_cost(CollectiveKind::all_reduce, plan::tp_algorithm(algo_, first),
                                         workload::tp_group(p_, 0, 0), first.tp_bytes)
                             .time(first.tp_bytes);
  if (p_.cp > 1 && first.cp_bytes > 0)
    e_.cp_collective_s =
        collective_cost(CollectiveKind::all_gather, algo_, workload::cp_group(p_, 0, 0, 0), first.cp_bytes)
            .time(first.cp_bytes);
  if (w_.model.moe() && p_.ep > 1 && first.ep_bytes > 0) {
    // Every expert group of the first stage at once, as the simulation's probe runs them.
    std::vector<std::vector<int>> groups;
    for (int t = 0; t < p_.tp; ++t)
      for (int d = 0; d < p_.dp; d += p_.ep)
        groups.push_back(workload::ep_group(p_, t, d, 0));
    // Per byte of what each rank sends: a per-node dispatch sends each token once per node it reaches.
    const double bytes = first.ep_dispatch ? first.ep_dispatch->token_bytes : first.ep_bytes;
    const auto a2a = first.ep_dispatch ? comm_.expert_dispatch(groups, *first.ep_dispatch)
                                       : comm_.all_to_all(groups, first.ep_rank_shares);
    e_.ep_collective_s = a2a.time(bytes);
    ep_core_s_per_use_ = a2a.host_core_s_per_byte * bytes;
  }
  tp_each_ = workload::tp_each_s(first.tp_overlap_gemms, first.tp_overlap, e_.tp_collective_s);
}

// Sends between consecutive virtual stages (activations forward, their gradients back).
void StepEstimator::cost_sends() {
  send_to_next_.resize(static_cast<std::size_t>(chunks_));
  for (int vs = 0; vs + 1 < chunks_; ++vs) {
    // A V's last stage passes its first chunk's output to its second on the same GPUs: nothing to send.
    const int s0 = workload::stage_of_virtual(p_, v_, vs);
    const int s1 = workload::stage_of_virtual(p_, v_, vs + 1);
    if (s0 != s1)
      send_to_next_[static_cast<std::size_t>(vs)] =
          comm_.sends(workload::replica_group(p_, 0, s0), workload::replica_group(p_, 0, s1));
  }
}

int StepEstimator::virtual_stage(int st, int chunk) const {
  return workload::virtual_stage_of(p_, v_, st, chunk);
}

double StepEstimator::send_s(int vs) const {
  return send_to_next_[static_cast<std::size_t>(vs)].time(costs(vs).p2p_bytes);
}

double StepEstimator::tp_time(int all, int bwd) const {
  return (all - bwd) * tp_each_.forward_s + bwd * tp_each_.backward_s;
}

double StepEstimator::cp_each(const plan::StageCosts& c) const {
  return std::max(0.0, e_.cp_collective_s - c.cp_hide_s);
}

double StepEstimator::combined_step_s(int vf, int vb) {
  auto it = combined_s_.find({vf, vb});
  if (it == combined_s_.end()) {
    const auto& cb = costs(vb);
    it = combined_s_
             .emplace(std::pair{vf, vb}, plan::combined_step(costs(vf), cb)
                                             .time_s(1.0, tp_each_.forward_s, tp_each_.backward_s,
                                                     cp_each(cb), e_.ep_collective_s))
             .first;
  }
  return it->second;
}

StepEstimate StepEstimator::run() {
  schedule();
  reduce_gradients();
  add_step_totals();
  return e_;
}

void StepEstimator::schedule() {
  for (bool progress = true; progress;) {
    progress = false;
    for (int st = 0; st < p_.pp; ++st)
      while (run_next(st))
        progress = true;
  }
  for (int st = 0; st < p_.pp; ++st)
    if (stages_[static_cast<std::size_t>(st)].next < ops_[static_cast<std::size_t>(st)].size())
      throw std::logic_error("the pipeline schedule did not complete");
}

bool StepEstimator::input_known(int st, const plan::PipelineOp& o, double& ready) const {
  const int ovs = virtual_stage(st, o.chunk);
  if (o.forward && ovs > 0) {
    const double from = fwd_end_[at(ovs - 1, o.micro)];
    if (from < 0)
      return false;
    ready = std::max(ready, from + send_s(ovs - 1));
  } else if (!o.forward && ovs + 1 < chunks_) {
    const double from = bwd_end_[at(ovs + 1, o.micro)];
    if (from < 0)
      return false;
    ready = std::max(ready, from + send_s(ovs));
  }
  return true;
}

// Load k, which fills micro-batch k + prefetch, starts once load k-1 has ended and micro-batch k has
// left the queue (its forward is next on the first stage); the forward of micro-batch k >= prefetch
// waits for load k - prefetch. A load takes the longest of its parts, all progressing together.
double StepEstimator::wait_for_data(const plan::PipelineOp& op, const Stage& stage, double ready) {
  const auto k = static_cast<std::size_t>(op.micro);
  const double popped = stage.stream.last_compute;
  load_end_[k] = std::max(k > 0 ? load_end_[k - 1] : 0.0, popped) + load_s_;
  if (op.micro >= w_.data->prefetch) {
    const double data = load_end_[k - static_cast<std::size_t>(w_.data->prefetch)];
    data_stall_ += std::max(0.0, data - std::max(stage.stream.free_at, ready));
    ready = std::max(ready, data);
  }
  return ready;
}

bool StepEstimator::run_next(int st) {
  auto& stage = stages_[static_cast<std::size_t>(st)];
  const auto& ops = ops_[static_cast<std::size_t>(st)];
  if (stage.next >= ops.size())
    return false;
  const auto& op = ops[stage.next];
  // A combined step waits for both its passes' inputs.
  const plan::PipelineOp* with = op.with_next ? &ops[stage.next + 1] : nullptr;
  double ready = 0;
  if (!op.weight && (!input_known(st, op, ready) || (with != nullptr && !input_known(st, *with, ready))))
    return false;
  if (w_.data && st == 0 && op.forward && op.chunk == 0)
    ready = wait_for_data(op, stage, ready);
  const double end = run_op(st, op, with, std::max(stage.stream.free_at, ready), ready);
  finish_op(st, op, with, end);
  stage.next += with != nullptr ? 2 : 1;
  return true;
}

double StepEstimator::run_op(int st, const plan::PipelineOp& op, const plan::PipelineOp* with, double start,
                             double ready) {
  auto& stage = stages_[static_cast<std::size_t>(st)];
  const int vs = virtual_stage(st, op.chunk);
  const auto& c = costs(vs);
  if (op.weight)
    return run_weight_op(stage, vs, op, start);
  if (with != nullptr)
    return run_combined(stage, vs, op, *with, st, start);
  if (zero3_)
    return op.forward ? run_zero3_forward(st, vs, op.micro, start, ready)
                      : run_zero3_backward(st, vs, start, ready);
  if (op.forward && gather_in_forward_ && op.micro == 0)
    return run_gathering_forward(st, vs, start);
  if (op.forward) {
    double end = start;
    end += c.fwd_compute_s + tp_time(c.fwd_tp_collectives, 0) + c.fwd_ep_collectives * e_.ep_collective_s +
           c.fwd_cp_collectives * cp_each(c);
    count_forward(stage, c);
    fwd_end_[at(vs, op.micro)] = end;
    return end;
  }
  if (op.micro == m_ - 1 && reduce_ && !op.weight_later)
    return run_last_backward(stage, vs, op.chunk, start);
  // A zero-bubble backward leaves its weight gradients to its weight op.
  double end = start;
  end += c.bwd_compute_s - (op.weight_later ? c.bwd_wgrad_s : 0.0) +
         tp_time(c.bwd_tp_collectives, c.bwd_tp_bwd_collectives) + c.bwd_ep_collectives * e_.ep_collective_s +
         c.bwd_cp_collectives * cp_each(c);
  return end;
}

// A zero-bubble weight op: the weight gradients of a backward that ran earlier; the chunk's last
// completes its buckets.
double StepEstimator::run_weight_op(Stage& stage, int vs, const plan::PipelineOp& op, double start) {
  const auto& c = costs(vs);
  double end = start;
  if (op.micro == m_ - 1 && reduce_) {
    for (const auto& b : c.buckets) {
      end += b.wgrad_s;
      bucket_ready_[static_cast<std::size_t>(vs)].push_back(end);
    }
    stage.chunk_order.push_back(op.chunk);
  } else {
    end += c.bwd_wgrad_s;
  }
  return end;
}

double StepEstimator::run_combined(Stage& stage, int vs, const plan::PipelineOp& op,
                                   const plan::PipelineOp& with, int st, double start) {
  const auto& c = costs(vs);
  const int vb = virtual_stage(st, with.chunk);
  const auto& cb = costs(vb);
  double end = start;
  end += combined_step_s(vs, vb);
  stage.kernel_s += c.fwd_compute_s + cb.bwd_compute_s;
  stage.tp_s += tp_time(c.fwd_tp_collectives, 0) + tp_time(cb.bwd_tp_collectives, cb.bwd_tp_bwd_collectives);
  ep_uses_ += c.fwd_ep_collectives + cb.bwd_ep_collectives;
  stage.cp_s += (c.fwd_cp_collectives + cb.bwd_cp_collectives) * cp_each(cb);
  fwd_end_[at(vs, op.micro)] = end;
  bwd_end_[at(vb, with.micro)] = end;
  stage.last_backward = std::max(stage.last_backward, end);
  return end;
}

namespace {

int layer_tensors(const plan::StageCosts& c, int l) {
  if (l == c.layers)
    return c.embed_tensors;
  return c.at(l).tensors + (l == 0 && c.first ? c.embed_tensors : 0);
}

double layer_params(const plan::StageCosts& c, int l) {
  return l == c.layers ? c.embed_params : c.at(l).params + (l == 0 && c.first ? c.embed_params : 0.0);
}

} // namespace

double StepEstimator::run_zero3_forward(int st, int vs, int micro, double start, double ready) {
  auto& stage = stages_[static_cast<std::size_t>(st)];
  const auto& c = costs(vs);
  double end = start;
  for (int l = 0; l < c.layers + (c.last ? 1 : 0); ++l) {
    const bool head = l == c.layers;
    const double compute = head ? c.head_fwd_s
                                : c.at(l).fwd_s + tp_time(c.at(l).fwd_tp, 0) +
                                      c.at(l).fwd_ep * e_.ep_collective_s + c.at(l).fwd_cp * cp_each(c);
    end = zero3_chains_.layer(st, stage.stream, l == 0 ? ready : 0.0, compute, layer_params(c, l),
                              layer_tensors(c, l), false, e_.host_core_s);
  }
  count_forward(stage, c);
  fwd_end_[at(vs, micro)] = end;
  return end;
}

double StepEstimator::run_zero3_backward(int st, int vs, double start, double ready) {
  auto& stage = stages_[static_cast<std::size_t>(st)];
  const auto& c = costs(vs);
  double end = start;
  const int top = c.layers - (c.last ? 0 : 1);
  for (int l = top; l >= 0; --l) {
    const bool head = l == c.layers;
    const double compute = head ? c.head_bwd_s
                                : c.at(l).bwd_s + tp_time(c.at(l).bwd_tp, c.at(l).bwd_tp_bwd) +
                                      c.at(l).bwd_ep * e_.ep_collective_s + c.at(l).bwd_cp * cp_each(c);
    end = zero3_chains_.layer(st, stage.stream, l == top ? ready : 0.0, compute, layer_params(c, l),
                              layer_tensors(c, l), true, e_.host_core_s);
  }
  zero3_chains_.book_scatter(st, e_.host_core_s);
  return end;
}

// The first bucket's gather waits for the stream and the input; each later one for the previous gather
// and for the start of the part that uses the previous bucket.
double StepEstimator::run_gathering_forward(int st, int vs, double start) {
  auto& stage = stages_[static_cast<std::size_t>(st)];
  const auto& c = costs(vs);
  double end = start;
  double before = w_.align_param_gather ? 0.0 : start; // aligned: dispatched at the start
  for (auto b = c.buckets.rbegin(); b != c.buckets.rend(); ++b) {
    double part_start = end;
    if (b->params > 0) {
      const double g0 = std::max(stage.gather_end, before);
      const double bytes = b->params * w_.param_gather_bytes();
      const auto& gather = collectives_.cost(CollectiveKind::all_gather, st, bytes);
      stage.gather_end = g0 + gather.time(bytes);
      stage.forward_gather_comm += stage.gather_end - g0;
      e_.host_core_s += gather.host_core_s_per_byte * b->params * w_.param_gather_bytes();
      e_.arm_core_s += gather.arm_core_s_per_byte * b->params * w_.param_gather_bytes();
      part_start = std::max(end, stage.gather_end);
    }
    if (!w_.align_param_gather)
      before = end;
    end = part_start + b->fwd_compute_s + tp_time(b->fwd_tp_collectives, 0) +
          b->fwd_ep_collectives * e_.ep_collective_s + b->fwd_cp_collectives * cp_each(c);
  }
  count_forward(stage, c);
  fwd_end_[at(vs, 0)] = end;
  return end;
}

// The chunk's last backward: each bucket's gradients are complete in turn.
double StepEstimator::run_last_backward(Stage& stage, int vs, int chunk, double start) {
  const auto& c = costs(vs);
  double end = start;
  for (const auto& b : c.buckets) {
    end += b.compute_s + tp_time(b.tp_collectives, b.tp_bwd_collectives) +
           b.ep_collectives * e_.ep_collective_s + b.cp_collectives * cp_each(c);
    bucket_ready_[static_cast<std::size_t>(vs)].push_back(end);
  }
  stage.chunk_order.push_back(chunk);
  return end;
}

void StepEstimator::count_forward(Stage& stage, const plan::StageCosts& c) {
  stage.kernel_s += c.fwd_compute_s;
  stage.tp_s += tp_time(c.fwd_tp_collectives, 0);
  ep_uses_ += c.fwd_ep_collectives;
  stage.cp_s += c.fwd_cp_collectives * cp_each(c);
}

void StepEstimator::finish_op(int st, const plan::PipelineOp& op, const plan::PipelineOp* with, double end) {
  auto& stage = stages_[static_cast<std::size_t>(st)];
  const int vs = virtual_stage(st, op.chunk);
  const auto& c = costs(vs);
  if (op.weight) {
    stage.kernel_s += c.bwd_wgrad_s;
    stage.last_backward = std::max(stage.last_backward, end);
  } else if (!op.forward && with == nullptr) {
    stage.kernel_s += c.bwd_compute_s - (op.weight_later ? c.bwd_wgrad_s : 0.0);
    stage.tp_s += tp_time(c.bwd_tp_collectives, c.bwd_tp_bwd_collectives);
    ep_uses_ += c.bwd_ep_collectives;
    stage.cp_s += c.bwd_cp_collectives * cp_each(c);
    bwd_end_[at(vs, op.micro)] = end;
    stage.last_backward = std::max(stage.last_backward, end);
  }
  stage.stream.free_at = end;
  if (!zero3_) {
    stage.stream.before_last_compute = stage.stream.last_compute;
    stage.stream.last_compute = end;
  }
  // Without overlap the sender's next operation waits for its send (a blocking send/receive).
  if (w_.overlap_p2p)
    return;
  for (const auto* o : {&op, with}) {
    if (o == nullptr || o->weight) // a weight op sends nothing
      continue;
    const int ovs = virtual_stage(st, o->chunk);
    if (o->forward && ovs + 1 < chunks_)
      stage.stream.free_at = std::max(stage.stream.free_at, end + send_s(ovs));
    else if (!o->forward && ovs > 0)
      stage.stream.free_at = std::max(stage.stream.free_at, end + send_s(ovs - 1));
  }
}

// Gradient reduction per stage (one communicator, buckets in the order they are ready), then the
// optimizer and, with ZeRO-1/2, the gather of the updated parameters.
void StepEstimator::reduce_gradients() {
  const auto kind = w_.zero_stage >= 1 ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce;
  for (int st = 0; st < p_.pp; ++st) {
    auto& stage = stages_[static_cast<std::size_t>(st)];
    double chain = 0;
    if (reduce_) {
      for (int chunk : stage.chunk_order) {
        const int vs = virtual_stage(st, chunk);
        const auto& c = costs(vs);
        for (std::size_t k = 0; k < c.buckets.size(); ++k) {
          const double ready =
              w_.overlap_grad_reduce ? bucket_ready_[static_cast<std::size_t>(vs)][k] : stage.stream.free_at;
          const double start = std::max(chain, ready);
          const auto& reduction = collectives_.cost(kind, st, c.buckets[k].bytes);
          chain = start + reduction.time(c.buckets[k].bytes);
          e_.host_core_s += reduction.host_core_s_per_byte * c.buckets[k].bytes;
          e_.arm_core_s += reduction.arm_core_s_per_byte * c.buckets[k].bytes;
          stage.dp_comm += chain - start;
        }
      }
      stage.dp_end = chain;
    }
    double optimizer_s = 0;
    double params = 0;
    for (int chunk = 0; chunk < v_; ++chunk) {
      optimizer_s += costs(virtual_stage(st, chunk)).optimizer_s;
      params += costs(virtual_stage(st, chunk)).params;
    }
    if (zero3_) {
      chain = zero3_chains_.scatter_end(st);
      stage.dp_comm = zero3_chains_.comm_s(st);
      stage.dp_end = std::max(zero3_chains_.gather_end(st), zero3_chains_.scatter_end(st));
    }
    double end = std::max(stage.stream.last_compute, chain) + optimizer_s;
    stage.kernel_s += optimizer_s;
    stage.dp_comm += stage.forward_gather_comm;
    if (w_.zero_stage >= 1 && reduce_ && !gather_in_forward_) {
      const auto& gather =
          collectives_.cost(CollectiveKind::all_gather, st, params * w_.param_gather_bytes());
      end += gather.time(params * w_.param_gather_bytes());
      e_.host_core_s += gather.host_core_s_per_byte * params * w_.param_gather_bytes();
      e_.arm_core_s += gather.arm_core_s_per_byte * params * w_.param_gather_bytes();
    }
    e_.step_time_s = std::max(e_.step_time_s, end);
  }
}

void StepEstimator::add_step_totals() {
  if (w_.data && m_ > 0) { // the last load fills the next iteration's queue: the step waits for it
    const double last = load_end_[static_cast<std::size_t>(m_ - 1)];
    data_stall_ += std::max(0.0, last - e_.step_time_s);
    e_.step_time_s = std::max(e_.step_time_s, last);
    e_.host_core_s += static_cast<double>(p_.dp) * m_ * w_.micro_batch * w_.data->decode.si();
    for (const auto& work :
         path_.storage_read(w_.micro_batch * w_.data->sample.si(), s_.cluster.storage.client_connections))
      (work.processor == datapath::Processor::host_cpu ? e_.host_core_s : e_.arm_core_s) +=
          static_cast<double>(p_.dp) * m_ * work.core_s;
  }
  e_.data_stall_s = data_stall_;
  std::size_t busiest = 0;
  for (std::size_t st = 1; st < stages_.size(); ++st)
    if (stages_[st].kernel_s > stages_[busiest].kernel_s)
      busiest = st;
  const auto& b = stages_[busiest];
  e_.compute_s = b.kernel_s;
  e_.tp_comm_s = b.tp_s;
  e_.cp_comm_s = b.cp_s;
  e_.dp_comm_s = b.dp_comm;
  e_.dp_exposed_s = std::max(0.0, b.dp_end - b.last_backward);

  const double group = static_cast<double>(p_.tp) * p_.cp;
  for (const auto& c : costs_) {
    e_.model_flops += static_cast<double>(p_.dp) * group * m_ * c.model_flops;
    e_.hw_flops += static_cast<double>(p_.dp) * group * m_ * c.hw_flops;
  }
  // Every all-to-all of the step: each of one replica's uses stands for its stage's expert groups, as the
  // probe does.
  e_.host_core_s += ep_uses_ * ep_core_s_per_use_;
  // Pipeline sends of every replica, both ways, every micro-batch.
  for (int vs = 0; vs + 1 < chunks_; ++vs) {
    const double bytes = 2.0 * m_ * p_.dp * costs(vs).p2p_bytes;
    e_.host_core_s += send_to_next_[static_cast<std::size_t>(vs)].host_core_s_per_byte * bytes;
    e_.arm_core_s += send_to_next_[static_cast<std::size_t>(vs)].arm_core_s_per_byte * bytes;
  }
  // Host cores: every GPU's launch thread issues its kernels (the simulation books the same).
  if (const auto& launch = hw_.cpu.kernel_launch_cpu) {
    double kernels = 0;
    for (const auto& c : costs_)
      kernels +=
          m_ * ((c.layers_fwd_kernels() + c.layers_bwd_kernels()) + c.head_fwd_kernels + c.head_bwd_kernels);
    kernels += 4.0 * v_ * p_.pp; // the fused optimizer kernels
    e_.host_core_s += kernels * static_cast<double>(p_.dp) * group * launch->value.si();
  }
}

} // namespace dpusim::estimate
