#include "sim/estimate/step_estimate.hpp"

#include "models/calibration/profile.hpp"
#include "models/workload/layer_kinds.hpp"
#include "sim/estimate/checkpoint_estimate.hpp"
#include "sim/estimate/comm_costs.hpp"
#include "sim/estimate/measured_latency.hpp"
#include "sim/model/checkpoint/checkpoint.hpp"
#include "sim/model/congestion/congestion.hpp"
#include "sim/model/noise/noise.hpp"
#include "sim/model/plan_size.hpp"
#include "sim/model/registry.hpp"
#include "sim/plan/combined_step.hpp"
#include "sim/plan/stage_costs.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/scenario/gpu_compute.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <tuple>

namespace dpusim::estimate {

namespace {

void refuse_what_is_not_modelled(const scenario::Scenario& s) {
  if (model::noise_of(s) != nullptr)
    throw NotEstimated("noise is sampled, not estimated");
  if (model::congestion_of(s) != nullptr)
    throw NotEstimated("RoCE congestion is not estimated");
  if (s.extensions.count("faults") != 0)
    throw NotEstimated("faults are not estimated");
  if (s.cluster.tenants.flows > 0)
    throw NotEstimated("other tenants' traffic is not estimated");
}

double peak_flops(const scenario::Scenario& s, const scenario::Hardware& hw) {
  const auto* peak = hw.gpu.peak(s.workload.precision);
  return (peak != nullptr ? *peak : hw.gpu.peak_bf16).value.si();
}

/// One load of a replica's input pipeline: the longest of the storage server's media and port (shared by
/// the loaders reading from it at once), the node's NIC, the decoding workers (one core each, sharing the
/// host's cores with the node's other loaders) and the storage client (kernel TCP over the node's
/// connections, or SNAP's threads on the DPU's Arm cores).
double input_load_s(const scenario::Scenario& s, const scenario::Hardware& hw, const datapath::DataPath& path,
                    const topology::ClusterLayout& layout) {
  const auto& w = s.workload;
  const auto& dc = *w.data;
  const auto& p = w.parallelism;
  const double bytes = w.micro_batch * dc.sample.si();
  const double decode = w.micro_batch * dc.decode.si();
  // Replicas whose loaders run at once, and those on replica 0's node (a large run simulates replica
  // 0's alone, whose loaders then meet no others).
  const bool one = model::representative_replica(s);
  const int per_node = layout.node.gpus;
  const int node0 = workload::replica_group(p, 0, 0).front() / per_node;
  int on_node = 0;
  for (int d = 0; d < (one ? 1 : p.dp); ++d)
    on_node += workload::replica_group(p, d, 0).front() / per_node == node0 ? 1 : 0;
  const int loaders = one ? 1 : p.dp;
  double t = 0;
  if (bytes > 0) {
    const auto& st = s.cluster.storage;
    const double sharing = std::max(1.0, static_cast<double>(loaders) / std::max(1, st.servers));
    t = std::max(t, bytes * sharing / st.read_rate.si());
    t = std::max(t, bytes * sharing / layout.storage.link.si());
    t = std::max(t, bytes / layout.node.nic_line_rate.si());
    for (const auto& work : path.storage_read(bytes, st.client_connections)) {
      const int threads = std::max(1, work.threads);
      if (work.processor == datapath::Processor::host_cpu) {
        // Every loader of the node shares its connections (one core each).
        const double share =
            std::max(1.0, static_cast<double>(on_node) * threads / std::max(1, st.client_connections));
        t = std::max(t, work.core_s / threads * share);
      } else if (const auto& arm = hw.arm_for(offload::Function::storage)) {
        t = std::max(t,
                     work.core_s / threads * std::max(1.0, static_cast<double>(threads) / arm->cores.value));
      }
    }
  }
  if (decode > 0) {
    const double share =
        std::max(1.0, static_cast<double>(on_node) * dc.workers / std::max(1, hw.node_host_cores()));
    t = std::max(t, decode / dc.workers * share);
  }
  return t;
}

} // namespace

StepEstimate estimate_step(const scenario::Scenario& s, const scenario::Hardware& hw) {
  refuse_what_is_not_modelled(s);
  const auto& w = s.workload;
  const auto& p = w.parallelism;
  const offload::Variant& variant = s.variants.front();
  const datapath::DataPath path(variant, s.cluster.services, hw);
  const auto layout = scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch,
                                               hw.storage_nic ? &*hw.storage_nic : nullptr);
  const CommCosts comm(layout, hw, path, s.cluster.fabric.routing);
  const auto algo = plan::parse_algorithm(w.collective_algorithm).value_or(CollectiveAlgorithm::ring);
  // Under NCCL's own choice each collective's cost depends on its size: the algorithm and protocol the
  // tuner picks for it.
  std::optional<NcclCommCosts> nccl;
  if (algo == CollectiveAlgorithm::tuned)
    nccl.emplace(layout, hw, path, s.cluster.fabric.routing);
  const auto collective_cost = [&](CollectiveKind k, CollectiveAlgorithm a,
                                   const std::vector<std::vector<int>>& groups, double bytes) {
    return a == CollectiveAlgorithm::tuned
               ? nccl->collective(k, nccl->choice(k, groups.front(), bytes), groups)
               : comm.collective(k, a, groups);
  };
  // A virtual stage's costs depend only on its layers (how many, of which kinds) and on whether it holds
  // the embedding or the head — and, under uneven expert routing, on which layers they are (each draws
  // its own load): computed once per kind (a deep pipeline has a handful, not pp x virtual_stages).
  const auto gpu = scenario::gpu_compute(hw);
  std::vector<plan::StageCosts> costs;
  std::map<std::tuple<std::vector<int>, bool, bool, int>, plan::StageCosts> kinds;
  const int stages = p.pp * w.virtual_stages;
  const bool layers_differ = w.model.moe() && w.routing && w.routing->uneven();
  for (int vs = 0; vs < stages; ++vs) {
    auto layer_kinds = workload::chunk_layer_kinds(w.model, p, w.virtual_stages, vs);
    const std::tuple<std::vector<int>, bool, bool, int> kind{
        std::move(layer_kinds), vs == 0, vs == stages - 1,
        layers_differ ? workload::chunk_first_layer(p, w.model.layers, w.virtual_stages, vs) : -1};
    auto it = kinds.find(kind);
    if (it == kinds.end())
      it = kinds.emplace(kind, plan::stage_costs(w, gpu, vs)).first;
    costs.push_back(it->second);
    costs.back().stage = vs;
  }

  StepEstimate e;
  const auto& first = costs.front();
  double ep_core_s_per_use = 0; // host core-seconds of one all-to-all of every expert group
  if (p.tp > 1 && first.tp_bytes > 0)
    e.tp_collective_s = collective_cost(CollectiveKind::all_reduce, plan::tp_algorithm(algo, first),
                                        {workload::tp_group(p, 0, 0)}, first.tp_bytes)
                            .time(first.tp_bytes);
  if (p.cp > 1 && first.cp_bytes > 0)
    e.cp_collective_s =
        collective_cost(CollectiveKind::all_gather, algo, {workload::cp_group(p, 0, 0, 0)}, first.cp_bytes)
            .time(first.cp_bytes);
  if (w.model.moe() && p.ep > 1 && first.ep_bytes > 0) {
    // Every expert group of the first stage at once, as the simulation's probe runs them.
    std::vector<std::vector<int>> groups;
    for (int t = 0; t < p.tp; ++t)
      for (int d = 0; d < p.dp; d += p.ep)
        groups.push_back(workload::ep_group(p, t, d, 0));
    // Per byte of what each rank sends: a per-node dispatch sends each token once per node it reaches.
    const double bytes = first.ep_dispatch ? first.ep_dispatch->token_bytes : first.ep_bytes;
    const auto a2a = first.ep_dispatch ? comm.expert_dispatch(groups, *first.ep_dispatch)
                                       : comm.all_to_all(groups, first.ep_rank_shares);
    e.ep_collective_s = a2a.time(bytes);
    ep_core_s_per_use = a2a.host_core_s_per_byte * bytes;
  }
  const auto tp_each = workload::tp_each_s(first.tp_overlap_gemms, first.tp_overlap, e.tp_collective_s);
  // What `all` fused tensor-parallel all-reduces add, `bwd` of them in a backward pass proper.
  const auto tp_time = [&](int all, int bwd) {
    return (all - bwd) * tp_each.forward_s + bwd * tp_each.backward_s;
  };
  const auto cp_each = [&](const plan::StageCosts& c) {
    return std::max(0.0, e.cp_collective_s - c.cp_hide_s);
  };

  const int pp = p.pp;
  const int v = w.virtual_stages;
  const int m = w.micro_batches();
  const int chunks = pp * v;
  const auto at = [m](int vs, int mb) {
    return static_cast<std::size_t>(vs) * static_cast<std::size_t>(m) + mb;
  };
  std::vector<double> fwd_end(static_cast<std::size_t>(chunks) * m, -1.0);
  std::vector<double> bwd_end = fwd_end;
  // Sends between consecutive virtual stages (activations forward, their gradients back).
  std::vector<CommCost> send_to_next(static_cast<std::size_t>(chunks));
  for (int vs = 0; vs + 1 < chunks; ++vs) {
    // A V's last stage passes its first chunk's output to its second on the same GPUs: nothing to send.
    const int s0 = workload::stage_of_virtual(p, v, vs);
    const int s1 = workload::stage_of_virtual(p, v, vs + 1);
    if (s0 != s1)
      send_to_next[static_cast<std::size_t>(vs)] =
          comm.sends(workload::replica_group(p, 0, s0), workload::replica_group(p, 0, s1));
  }
  const auto send_s = [&](int vs) {
    return send_to_next[static_cast<std::size_t>(vs)].time(costs[static_cast<std::size_t>(vs)].p2p_bytes);
  };

  // Each stage's operations in schedule order; an operation starts once its stream is free and its
  // input has arrived. Stages advance in turn until every operation has run.
  std::vector<std::vector<plan::PipelineOp>> ops(static_cast<std::size_t>(pp));
  for (int st = 0; st < pp; ++st)
    ops[static_cast<std::size_t>(st)] = plan::stage_schedule(w, st);
  // Combined steps (workload.overlap_ep_comm), by the forward's and the backward's virtual stage.
  std::map<std::pair<int, int>, double> combined_s;
  const auto combined_step_s = [&](int vf, int vb) {
    auto it = combined_s.find({vf, vb});
    if (it == combined_s.end()) {
      const auto& cb = costs[static_cast<std::size_t>(vb)];
      it = combined_s
               .emplace(std::pair{vf, vb}, plan::combined_step(costs[static_cast<std::size_t>(vf)], cb)
                                               .time_s(1.0, tp_each.forward_s, tp_each.backward_s,
                                                       cp_each(cb), e.ep_collective_s))
               .first;
    }
    return it->second;
  };
  std::vector<std::size_t> next(static_cast<std::size_t>(pp), 0);
  std::vector<double> free_at(static_cast<std::size_t>(pp), 0.0);
  std::vector<double> last_backward(static_cast<std::size_t>(pp), 0.0);
  std::vector<std::vector<double>> bucket_ready(static_cast<std::size_t>(chunks));
  std::vector<std::vector<int>> chunk_order(static_cast<std::size_t>(pp));
  std::vector<double> kernel_s(static_cast<std::size_t>(pp), 0.0);
  std::vector<double> tp_s(static_cast<std::size_t>(pp), 0.0);
  std::vector<double> cp_s(static_cast<std::size_t>(pp), 0.0);
  double ep_uses = 0; // all-to-alls of one replica's stages, forward and backward
  const bool zero3 = w.zero_stage >= 3 && p.dp * p.cp > 1;
  const bool reduce = p.dp * p.cp > 1 && !zero3;
  // ZeRO-1/2 with overlap_param_gather: the updated parameters are gathered bucket by bucket during each
  // chunk's first forward (sim/plan/iteration_plan.cpp, forward_gathering), not after the step.
  const bool gather_in_forward =
      w.zero_stage >= 1 && w.zero_stage < 3 && p.dp * p.cp > 1 && w.param_gather_overlapped();
  std::vector<double> forward_gather_comm(static_cast<std::size_t>(pp), 0.0);
  // ZeRO-3: each layer's parameters gathered before it runs (prefetched one layer ahead with
  // overlap_param_gather), its gradients reduce-scattered after its backward; one gather chain and one
  // scatter chain per stage, over every tensor-parallel rank's data- and context-parallel group.
  std::vector<double> last_compute(static_cast<std::size_t>(pp), 0.0);
  std::vector<double> before_last_compute(static_cast<std::size_t>(pp), 0.0);
  std::vector<double> gather_chain(static_cast<std::size_t>(pp), 0.0);
  std::vector<double> scatter_chain(static_cast<std::size_t>(pp), 0.0);
  std::vector<double> zero3_comm(static_cast<std::size_t>(pp), 0.0);
  // Data-parallel collectives of a stage, over every tensor-parallel rank's data- and context-parallel
  // group. Every stage's groups are stage 0's moved by whole nodes where the layout is regular: the
  // same closed form, computed once.
  const int per_node = layout.node.gpus;
  std::vector<int> cost_stage(static_cast<std::size_t>(pp), 0); // the stage whose closed form a stage takes
  std::vector<std::vector<std::vector<int>>> stage_groups(static_cast<std::size_t>(pp));
  for (int st = 0; st < pp; ++st) {
    auto& groups = stage_groups[static_cast<std::size_t>(st)];
    for (int j = 0; j < p.tp; ++j)
      groups.push_back(workload::gradient_group(p, j, st));
    const auto& first_groups = stage_groups.front();
    const int shift = groups.front().front() - first_groups.front().front();
    bool aligned = shift % per_node == 0 && groups.size() == first_groups.size();
    for (std::size_t g = 0; aligned && g < groups.size(); ++g) {
      aligned = groups[g].size() == first_groups[g].size();
      for (std::size_t i = 0; aligned && i < groups[g].size(); ++i)
        aligned = groups[g][i] - first_groups[g][i] == shift;
    }
    cost_stage[static_cast<std::size_t>(st)] = aligned ? 0 : st;
  }
  // Per kind and stage (and, under NCCL's own choice, per algorithm and protocol picked at the size).
  std::map<std::tuple<int, int, int, int>, CommCost> stage_costs;
  std::map<std::tuple<int, int, double>, plan::NcclChoice> choices; // the same sizes recur every micro-batch
  const auto stage_collective = [&](CollectiveKind k, int st, double bytes) -> const CommCost& {
    const int from = cost_stage[static_cast<std::size_t>(st)];
    const auto& groups = stage_groups[static_cast<std::size_t>(from)];
    plan::NcclChoice choice{algo};
    if (nccl) {
      const std::tuple<int, int, double> size_key{static_cast<int>(k), from, bytes};
      auto c = choices.find(size_key);
      if (c == choices.end())
        c = choices.emplace(size_key, nccl->choice(k, groups.front(), bytes)).first;
      choice = c->second;
    }
    const std::tuple<int, int, int, int> key{static_cast<int>(k), from, static_cast<int>(choice.algorithm),
                                             static_cast<int>(choice.protocol)};
    auto it = stage_costs.find(key);
    if (it == stage_costs.end())
      it = stage_costs
               .emplace(key, nccl ? nccl->collective(k, choice, groups) : comm.collective(k, algo, groups))
               .first;
    return it->second;
  };
  const double launch_s = hw.cpu.kernel_launch_cpu ? hw.cpu.kernel_launch_cpu->value.si() : 0.0;
  const auto peer_copies = [&](int tensors) {
    return w.zero_per_peer_buffers && tensors > 0 ? static_cast<double>(tensors) * p.dp * p.cp * launch_s
                                                  : 0.0;
  };
  // The gathers and the reduce-scatters cross the same NICs, each kind one after another: where a
  // transfer meets one of the other kind in flight, the two share the NICs equally until the smaller
  // has moved its bytes (a transfer's latency uses no bandwidth). A layer's reduce-scatter is booked
  // once the next gather issued before it is, so that the gather it shares with is known.
  struct PendingScatter {
    double issued = 0;
    double bytes = 0;
    int tensors = 0;
  };
  std::vector<std::optional<PendingScatter>> pending(static_cast<std::size_t>(pp));
  // A transfer of latency `lat` and `work` seconds at the full rate, starting at t0 beside a transfer
  // of the other kind that ends at `other_end` (at the full rate, were it alone): both ends.
  const auto share = [](double t0, double lat, double work, double other_end) {
    const double bw = t0 + lat;
    const double rest = std::max(0.0, other_end - bw);
    if (rest <= 0)
      return std::pair{bw + work, other_end};
    return std::pair{bw + (work <= rest ? 2 * work : work + rest),
                     bw + (rest <= work ? 2 * rest : work + rest)};
  };
  const auto book_scatter = [&](int st) {
    const auto si = static_cast<std::size_t>(st);
    if (!pending[si])
      return;
    const double bytes = pending[si]->bytes;
    const auto& scatter = stage_collective(CollectiveKind::reduce_scatter, st, bytes);
    const double s0 = std::max(scatter_chain[si], pending[si]->issued);
    const auto [end, gather_end] = share(s0, scatter.latency_s + peer_copies(pending[si]->tensors),
                                         bytes * scatter.s_per_byte, gather_chain[si]);
    scatter_chain[si] = end;
    gather_chain[si] = gather_end;
    zero3_comm[si] += end - s0;
    e.host_core_s +=
        scatter.host_core_s_per_byte * bytes + peer_copies(pending[si]->tensors) * p.tp * p.dp * p.cp;
    pending[si].reset();
  };
  // One ZeRO-3 layer task of stage st: its gather, its compute (after `ready` for the op's first layer),
  // and after a backward layer its gradients' reduce-scatter. Returns the compute's end.
  const auto zero3_layer = [&](int st, double ready, double compute_s, double params, int tensors,
                               bool backward) {
    const auto si = static_cast<std::size_t>(st);
    const auto& gather = stage_collective(CollectiveKind::all_gather, st, params * w.param_gather_bytes());
    const double wait = w.param_gather_overlapped() ? before_last_compute[si] : last_compute[si];
    if (pending[si] && pending[si]->issued < wait)
      book_scatter(st);
    const double g0 = std::max(gather_chain[si], wait);
    const auto [gathered, scatter_end] =
        share(g0, gather.latency_s + peer_copies(tensors),
              params * w.param_gather_bytes() * gather.s_per_byte, scatter_chain[si]);
    gather_chain[si] = gathered;
    scatter_chain[si] = scatter_end;
    e.host_core_s += gather.host_core_s_per_byte * params * w.param_gather_bytes() +
                     peer_copies(tensors) * p.tp * p.dp * p.cp;
    book_scatter(st); // issued with the gather or after it: it shares the rest of the gather's time
    zero3_comm[si] += gather_chain[si] - g0;
    const double start = std::max({free_at[si], ready, gather_chain[si]});
    const double end = start + compute_s;
    before_last_compute[si] = last_compute[si];
    last_compute[si] = end;
    free_at[si] = end;
    if (backward)
      pending[si] = PendingScatter{end, params * w.grad_bytes_per_param, tensors};
    return end;
  };
  const auto layer_tensors = [](const plan::StageCosts& c, int l) {
    if (l == c.layers)
      return c.embed_tensors;
    return c.at(l).tensors + (l == 0 && c.first ? c.embed_tensors : 0);
  };
  const auto layer_params = [](const plan::StageCosts& c, int l) {
    return l == c.layers ? c.embed_params : c.at(l).params + (l == 0 && c.first ? c.embed_params : 0.0);
  };
  // The input pipeline of each replica (sim/model/input_pipeline): load k, which fills micro-batch
  // k + prefetch, starts once load k-1 has ended and micro-batch k has left the queue (its forward is
  // next on the first stage); the forward of micro-batch k >= prefetch waits for load k - prefetch.
  // A load takes the longest of its parts, all progressing together.
  const double load_s = w.data ? input_load_s(s, hw, path, layout) : 0.0;
  std::vector<double> load_end(static_cast<std::size_t>(m), 0.0);
  double data_stall = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (int st = 0; st < pp; ++st) {
      const auto si = static_cast<std::size_t>(st);
      while (next[si] < ops[si].size()) {
        const auto& op = ops[si][next[si]];
        const int vs = workload::virtual_stage_of(p, v, st, op.chunk);
        const auto& c = costs[static_cast<std::size_t>(vs)];
        // When an operation's input arrives (false: not yet known).
        const auto input = [&](const plan::PipelineOp& o, double& ready) {
          const int ovs = workload::virtual_stage_of(p, v, st, o.chunk);
          if (o.forward && ovs > 0) {
            const double from = fwd_end[at(ovs - 1, o.micro)];
            if (from < 0)
              return false;
            ready = std::max(ready, from + send_s(ovs - 1));
          } else if (!o.forward && ovs + 1 < chunks) {
            const double from = bwd_end[at(ovs + 1, o.micro)];
            if (from < 0)
              return false;
            ready = std::max(ready, from + send_s(ovs));
          }
          return true;
        };
        // A combined step waits for both its passes' inputs.
        const plan::PipelineOp* with = op.with_next ? &ops[si][next[si] + 1] : nullptr;
        double ready = 0;
        if (!op.weight && (!input(op, ready) || (with != nullptr && !input(*with, ready))))
          break;
        if (w.data && st == 0 && op.forward && op.chunk == 0) {
          const auto k = static_cast<std::size_t>(op.micro);
          const double popped = last_compute[si];
          load_end[k] = std::max(k > 0 ? load_end[k - 1] : 0.0, popped) + load_s;
          if (op.micro >= w.data->prefetch) {
            const double data = load_end[k - static_cast<std::size_t>(w.data->prefetch)];
            data_stall += std::max(0.0, data - std::max(free_at[si], ready));
            ready = std::max(ready, data);
          }
        }
        const double start = std::max(free_at[si], ready);
        double end = start;
        if (op.weight) {
          // A zero-bubble weight op: the weight gradients of a backward that ran earlier; the chunk's last
          // completes its buckets.
          if (op.micro == m - 1 && reduce) {
            for (const auto& b : c.buckets) {
              end += b.wgrad_s;
              bucket_ready[static_cast<std::size_t>(vs)].push_back(end);
            }
            chunk_order[si].push_back(op.chunk);
          } else {
            end += c.bwd_wgrad_s;
          }
        } else if (with != nullptr) {
          const int vb = workload::virtual_stage_of(p, v, st, with->chunk);
          const auto& cb = costs[static_cast<std::size_t>(vb)];
          end += combined_step_s(vs, vb);
          kernel_s[si] += c.fwd_compute_s + cb.bwd_compute_s;
          tp_s[si] +=
              tp_time(c.fwd_tp_collectives, 0) + tp_time(cb.bwd_tp_collectives, cb.bwd_tp_bwd_collectives);
          ep_uses += c.fwd_ep_collectives + cb.bwd_ep_collectives;
          cp_s[si] += (c.fwd_cp_collectives + cb.bwd_cp_collectives) * cp_each(cb);
          fwd_end[at(vs, op.micro)] = end;
          bwd_end[at(vb, with->micro)] = end;
          last_backward[si] = std::max(last_backward[si], end);
        } else if (zero3 && op.forward) {
          for (int l = 0; l < c.layers + (c.last ? 1 : 0); ++l) {
            const bool head = l == c.layers;
            const double compute = head
                                       ? c.head_fwd_s
                                       : c.at(l).fwd_s + tp_time(c.at(l).fwd_tp, 0) +
                                             c.at(l).fwd_ep * e.ep_collective_s + c.at(l).fwd_cp * cp_each(c);
            end = zero3_layer(st, l == 0 ? ready : 0.0, compute, layer_params(c, l), layer_tensors(c, l),
                              false);
          }
          kernel_s[si] += c.fwd_compute_s;
          tp_s[si] += tp_time(c.fwd_tp_collectives, 0);
          ep_uses += c.fwd_ep_collectives;
          cp_s[si] += c.fwd_cp_collectives * cp_each(c);
          fwd_end[at(vs, op.micro)] = end;
        } else if (zero3) {
          for (int l = c.layers - (c.last ? 0 : 1); l >= 0; --l) {
            const bool head = l == c.layers;
            const double compute = head
                                       ? c.head_bwd_s
                                       : c.at(l).bwd_s + tp_time(c.at(l).bwd_tp, c.at(l).bwd_tp_bwd) +
                                             c.at(l).bwd_ep * e.ep_collective_s + c.at(l).bwd_cp * cp_each(c);
            end = zero3_layer(st, l == c.layers - (c.last ? 0 : 1) ? ready : 0.0, compute, layer_params(c, l),
                              layer_tensors(c, l), true);
          }
          book_scatter(st);
        } else if (op.forward && gather_in_forward && op.micro == 0) {
          // The first bucket's gather waits for the stream and the input; each later one for the previous
          // gather and for the start of the part that uses the previous bucket.
          double before = w.align_param_gather ? 0.0 : start; // aligned: dispatched at the start
          for (auto b = c.buckets.rbegin(); b != c.buckets.rend(); ++b) {
            double part_start = end;
            if (b->params > 0) {
              const double g0 = std::max(gather_chain[si], before);
              const double bytes = b->params * w.param_gather_bytes();
              const auto& gather = stage_collective(CollectiveKind::all_gather, st, bytes);
              gather_chain[si] = g0 + gather.time(bytes);
              forward_gather_comm[si] += gather_chain[si] - g0;
              e.host_core_s += gather.host_core_s_per_byte * b->params * w.param_gather_bytes();
              e.arm_core_s += gather.arm_core_s_per_byte * b->params * w.param_gather_bytes();
              part_start = std::max(end, gather_chain[si]);
            }
            if (!w.align_param_gather)
              before = end;
            end = part_start + b->fwd_compute_s + tp_time(b->fwd_tp_collectives, 0) +
                  b->fwd_ep_collectives * e.ep_collective_s + b->fwd_cp_collectives * cp_each(c);
          }
          kernel_s[si] += c.fwd_compute_s;
          tp_s[si] += tp_time(c.fwd_tp_collectives, 0);
          ep_uses += c.fwd_ep_collectives;
          cp_s[si] += c.fwd_cp_collectives * cp_each(c);
          fwd_end[at(vs, op.micro)] = end;
        } else if (op.forward) {
          end += c.fwd_compute_s + tp_time(c.fwd_tp_collectives, 0) +
                 c.fwd_ep_collectives * e.ep_collective_s + c.fwd_cp_collectives * cp_each(c);
          kernel_s[si] += c.fwd_compute_s;
          tp_s[si] += tp_time(c.fwd_tp_collectives, 0);
          ep_uses += c.fwd_ep_collectives;
          cp_s[si] += c.fwd_cp_collectives * cp_each(c);
          fwd_end[at(vs, op.micro)] = end;
        } else if (op.micro == m - 1 && reduce && !op.weight_later) {
          // The chunk's last backward: each bucket's gradients are complete in turn.
          for (const auto& b : c.buckets) {
            end += b.compute_s + tp_time(b.tp_collectives, b.tp_bwd_collectives) +
                   b.ep_collectives * e.ep_collective_s + b.cp_collectives * cp_each(c);
            bucket_ready[static_cast<std::size_t>(vs)].push_back(end);
          }
          chunk_order[si].push_back(op.chunk);
        } else {
          // A zero-bubble backward leaves its weight gradients to its weight op.
          end += c.bwd_compute_s - (op.weight_later ? c.bwd_wgrad_s : 0.0) +
                 tp_time(c.bwd_tp_collectives, c.bwd_tp_bwd_collectives) +
                 c.bwd_ep_collectives * e.ep_collective_s + c.bwd_cp_collectives * cp_each(c);
        }
        if (op.weight) {
          kernel_s[si] += c.bwd_wgrad_s;
          last_backward[si] = std::max(last_backward[si], end);
        } else if (!op.forward && with == nullptr) {
          kernel_s[si] += c.bwd_compute_s - (op.weight_later ? c.bwd_wgrad_s : 0.0);
          tp_s[si] += tp_time(c.bwd_tp_collectives, c.bwd_tp_bwd_collectives);
          ep_uses += c.bwd_ep_collectives;
          cp_s[si] += c.bwd_cp_collectives * cp_each(c);
          bwd_end[at(vs, op.micro)] = end;
          last_backward[si] = std::max(last_backward[si], end);
        }
        free_at[si] = end;
        if (!zero3) {
          before_last_compute[si] = last_compute[si];
          last_compute[si] = end;
        }
        // Without overlap the sender's next operation waits for its send (a blocking send/receive).
        if (!w.overlap_p2p) {
          for (const auto* o : {&op, with}) {
            if (o == nullptr || o->weight) // a weight op sends nothing
              continue;
            const int ovs = workload::virtual_stage_of(p, v, st, o->chunk);
            if (o->forward && ovs + 1 < chunks)
              free_at[si] = std::max(free_at[si], end + send_s(ovs));
            else if (!o->forward && ovs > 0)
              free_at[si] = std::max(free_at[si], end + send_s(ovs - 1));
          }
        }
        next[si] += with != nullptr ? 2 : 1;
        progress = true;
      }
    }
  }
  for (int st = 0; st < pp; ++st)
    if (next[static_cast<std::size_t>(st)] < ops[static_cast<std::size_t>(st)].size())
      throw std::logic_error("the pipeline schedule did not complete");

  // Gradient reduction per stage (one communicator, buckets in the order they are ready), then the
  // optimizer and, with ZeRO-1/2, the gather of the updated parameters.
  const auto kind = w.zero_stage >= 1 ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce;
  std::vector<double> dp_comm(static_cast<std::size_t>(pp), 0.0);
  std::vector<double> dp_end(static_cast<std::size_t>(pp), 0.0);
  for (int st = 0; st < pp; ++st) {
    const auto si = static_cast<std::size_t>(st);
    double chain = 0;
    if (reduce) {
      for (int chunk : chunk_order[si]) {
        const int vs = workload::virtual_stage_of(p, v, st, chunk);
        const auto& c = costs[static_cast<std::size_t>(vs)];
        for (std::size_t k = 0; k < c.buckets.size(); ++k) {
          const double ready =
              w.overlap_grad_reduce ? bucket_ready[static_cast<std::size_t>(vs)][k] : free_at[si];
          const double start = std::max(chain, ready);
          const auto& reduction = stage_collective(kind, st, c.buckets[k].bytes);
          chain = start + reduction.time(c.buckets[k].bytes);
          e.host_core_s += reduction.host_core_s_per_byte * c.buckets[k].bytes;
          e.arm_core_s += reduction.arm_core_s_per_byte * c.buckets[k].bytes;
          dp_comm[si] += chain - start;
        }
      }
      dp_end[si] = chain;
    }
    double optimizer_s = 0;
    double params = 0;
    for (int chunk = 0; chunk < v; ++chunk) {
      optimizer_s += costs[static_cast<std::size_t>(workload::virtual_stage_of(p, v, st, chunk))].optimizer_s;
      params += costs[static_cast<std::size_t>(workload::virtual_stage_of(p, v, st, chunk))].params;
    }
    if (zero3) {
      chain = scatter_chain[si];
      dp_comm[si] = zero3_comm[si];
      dp_end[si] = std::max(gather_chain[si], scatter_chain[si]);
    }
    double end = std::max(last_compute[si], chain) + optimizer_s;
    kernel_s[si] += optimizer_s;
    dp_comm[si] += forward_gather_comm[si];
    if (w.zero_stage >= 1 && reduce && !gather_in_forward) {
      const auto& gather = stage_collective(CollectiveKind::all_gather, st, params * w.param_gather_bytes());
      end += gather.time(params * w.param_gather_bytes());
      e.host_core_s += gather.host_core_s_per_byte * params * w.param_gather_bytes();
      e.arm_core_s += gather.arm_core_s_per_byte * params * w.param_gather_bytes();
    }
    e.step_time_s = std::max(e.step_time_s, end);
  }
  if (w.data && m > 0) { // the last load fills the next iteration's queue: the step waits for it
    const double last = load_end[static_cast<std::size_t>(m - 1)];
    data_stall += std::max(0.0, last - e.step_time_s);
    e.step_time_s = std::max(e.step_time_s, last);
    e.host_core_s += static_cast<double>(p.dp) * m * w.micro_batch * w.data->decode.si();
    for (const auto& work :
         path.storage_read(w.micro_batch * w.data->sample.si(), s.cluster.storage.client_connections))
      (work.processor == datapath::Processor::host_cpu ? e.host_core_s : e.arm_core_s) +=
          static_cast<double>(p.dp) * m * work.core_s;
  }
  e.data_stall_s = data_stall;
  const auto busiest =
      static_cast<std::size_t>(std::max_element(kernel_s.begin(), kernel_s.end()) - kernel_s.begin());
  e.compute_s = kernel_s[busiest];
  e.tp_comm_s = tp_s[busiest];
  e.cp_comm_s = cp_s[busiest];
  e.dp_comm_s = dp_comm[busiest];
  e.dp_exposed_s = std::max(0.0, dp_end[busiest] - last_backward[busiest]);

  const double group = static_cast<double>(p.tp) * p.cp;
  for (int vs = 0; vs < chunks; ++vs) {
    const auto& c = costs[static_cast<std::size_t>(vs)];
    e.model_flops += static_cast<double>(p.dp) * group * m * c.model_flops;
    e.hw_flops += static_cast<double>(p.dp) * group * m * c.hw_flops;
  }
  // Every all-to-all of the step: each of one replica's uses stands for its stage's expert groups, as
  // the probe does.
  e.host_core_s += ep_uses * ep_core_s_per_use;
  // Pipeline sends of every replica, both ways, every micro-batch.
  for (int vs = 0; vs + 1 < chunks; ++vs) {
    const double bytes = 2.0 * m * p.dp * costs[static_cast<std::size_t>(vs)].p2p_bytes;
    e.host_core_s += send_to_next[static_cast<std::size_t>(vs)].host_core_s_per_byte * bytes;
    e.arm_core_s += send_to_next[static_cast<std::size_t>(vs)].arm_core_s_per_byte * bytes;
  }
  // Host cores: every GPU's launch thread issues its kernels (the simulation books the same).
  if (const auto& launch = hw.cpu.kernel_launch_cpu) {
    double kernels = 0;
    for (int vs = 0; vs < chunks; ++vs) {
      const auto& c = costs[static_cast<std::size_t>(vs)];
      kernels +=
          m * ((c.layers_fwd_kernels() + c.layers_bwd_kernels()) + c.head_fwd_kernels + c.head_bwd_kernels);
    }
    kernels += 4.0 * v * pp; // the fused optimizer kernels
    e.host_core_s += kernels * static_cast<double>(p.dp) * group * launch->value.si();
  }
  return e;
}

report::VariantResult estimated_result(const scenario::Scenario& s, const catalog::Catalog& cat) {
  const auto& variant = s.variants.front();
  std::optional<calibration::Profile> profile;
  if (!s.calibration.empty())
    profile = calibration::load_profile(s.calibration);
  const auto hw = calibrated_hardware(s, cat, variant, profile ? &*profile : nullptr, s.calibration);
  const auto e = estimate_step(s, hw);
  const auto layout = scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch,
                                               hw.storage_nic ? &*hw.storage_nic : nullptr);

  auto r = report::identity_of(s, variant, hw);
  r.arm_cores = variant.on_dpu && hw.nic.arm ? hw.nic.arm->cores.value * layout.node.nics : 0;
  if (layout.storage.dpu && scenario::runs_on_frontend(s, variant, hw))
    r.arm_cores += hw.storage_nic->arm->cores.value * layout.node.trays;
  r.nodes = layout.nodes;
  r.gpus = layout.nodes * layout.node.gpus;
  r.tp_collective_s = e.tp_collective_s;
  r.cp_collective_s = e.cp_collective_s;
  r.ep_collective_s = e.ep_collective_s;

  auto& m = r.metrics;
  m.step_time_s = e.step_time_s;
  m.compute_s = e.compute_s;
  m.data_stall_s = e.data_stall_s;
  m.exposed_comm_s = std::max(0.0, e.step_time_s - e.compute_s - e.data_stall_s);
  m.tp_comm_s = e.tp_comm_s;
  m.cp_comm_s = e.cp_comm_s;
  m.dp_comm_s = e.dp_comm_s;
  m.dp_exposed_s = e.dp_exposed_s;
  m.host_cpu_core_s = e.host_core_s;
  if (e.step_time_s > 0) {
    m.host_cpu_busy_cores = e.host_core_s / (e.step_time_s * std::max(1, r.nodes));
    m.tflops_per_gpu = e.hw_flops / e.step_time_s / r.gpus / 1e12;
    m.mfu = e.model_flops / e.step_time_s / r.gpus / peak_flops(s, hw);
    m.tokens_per_s = static_cast<double>(s.workload.global_batch) * s.workload.seq_len / e.step_time_s;
  }
  if (s.workload.checkpoint) {
    const datapath::DataPath path(variant, s.cluster.services, hw);
    // Synchronous: the write after the step. Asynchronous: from the step's start beside it, which ends
    // when both have (the write's contention with the step's traffic left out, as all contention is).
    const double write_s = checkpoint_write_s(s, hw, path, layout);
    model::add_checkpoint_step(
        s, s.workload.checkpoint->async ? std::max(e.step_time_s, write_s) : e.step_time_s + write_s, m);
  }
  r.notes.push_back("estimated without simulation (closed forms, no contention): docs/models/estimator.md");
  return r;
}

} // namespace dpusim::estimate
