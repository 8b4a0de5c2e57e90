// One training iteration as a task graph: for every tensor-parallel group (one per data-parallel
// replica and pipeline stage) its forward and backward passes in (interleaved) 1F1B order, pipeline
// sends between stages, data-parallel gradient reduction per bucket overlapped with the last backward
// pass (or, under ZeRO-3, parameter gathers and gradient reduce-scatters around every layer), and the
// optimizer step. Tensor-parallel collectives stay inside the group's fused forward/backward tasks:
// their duration comes from simulating one such collective on the platform first (the probe) and is
// reused for all of them. Data-parallel replicas are symmetric, so large runs simulate the compute and
// pipeline traffic of one replica while every data-parallel collective still moves the bytes of all.
#pragma once

#include "sim/datapath/data_path.hpp"
#include "sim/engine/task_graph.hpp"
#include "sim/plan/collective_lowering.hpp"
#include "sim/plan/combined_step.hpp"
#include "sim/plan/cpu_use.hpp"
#include "sim/plan/iteration_extension.hpp"
#include "sim/plan/stage_costs.hpp"
#include "sim/scenario/scenario.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace dpusim::plan {

enum class TaskCategory : std::int32_t {
  flow, // one part (ring) of a communication
  forward,
  backward,
  optimizer,
  tp_collective,
  dp_collective,
  pp_transfer,
  latency,
  join,
  data_load,    // one micro-batch read from storage and decoded by a replica's loader
  agent,        // infrastructure agents, in the background
  checkpoint,   // one node's checkpoint write to the storage servers
  cross_traffic // other tenants' flows, in the background
};
std::string_view category_name(TaskCategory c);

struct TaskInfo {
  TaskCategory category = TaskCategory::join;
  std::string label;
  int dp = -1;
  int stage = -1;
  int micro = -1;
  int tp = -1;                   // tensor-parallel rank of a data-parallel communicator
  std::vector<int> gpus;         // GPUs the task occupies (compute) or connects (communication)
  std::vector<int> nics;         // NICs a communication crosses
  double compute_s = 0;          // GPU kernel seconds on each GPU of the task
  int tp_collectives = 0;        // tensor-parallel all-reduces fused into the task
  int tp_bwd_collectives = 0;    // of which in a backward pass proper (the others: forward or recomputed)
  int ep_collectives = 0;        // expert-parallel all-to-alls fused into the task
  int cp_collectives = 0;        // context-parallel key/value exchanges fused into the task
  double cp_hide_s = 0;          // of each, the attention compute it overlaps with
  double hw_flops = 0;           // per GPU
  double model_flops = 0;        // per GPU
  CpuUseSeconds host_core_s{};   // host CPU core-seconds by use
  CpuUseSeconds arm_core_s{};    // DPU Arm core-seconds by use
  engine::TaskId data_from = -1; // a forward task: the loader task that produced its micro-batch
  double bytes = 0;              // payload per rank moved by a communication
  int tail_steps = 0; // a communication's latency task: Lowered::tail_steps and tail_hops; a read-latency
                      // task: the reads each loader makes one after another, and the loaders
  int tail_hops = 1;
  int decode_from = 0;  // a loader's task: its loads [decode_from, decode_from + decode_loads) are its
  int decode_loads = 0; //   workers' decoding, one core each
  int client_from = 0;  // a storage read or write: its loads [client_from, client_from + client_loads) are
  int client_loads = 0; //   the storage client's threads (on the host: a core and its connection each,
  bool client_on_arm = false; //   two loads; on the Arm cores: one load per thread and DPU)
  double weight = 1;          // replicas this task stands for (data-parallel replicas not simulated)
  [[nodiscard]] double host_cpu_core_s() const;
  [[nodiscard]] double arm_cpu_core_s() const;
  engine::TaskId span_from = -1; // a communication's last task: the task its span starts with (its latency)
  // A combined step (workload.overlap_ep_comm): the micro-batch whose forward it runs beside the backward
  // of `micro`, its index in IterationPlan::combined_steps, and (after apply_probe) what its all-to-alls
  // add to its GPU work beside the other pass.
  int fwd_micro = -1;
  int ep_step = -1;
  double ep_step_exposed_s = 0;
};

struct IterationPlan {
  engine::TaskGraph graph;
  std::vector<TaskInfo> info;
  engine::TaskGraph probe;    // one tensor-parallel all-reduce, simulated alone
  engine::TaskGraph ep_probe; // one expert-parallel all-to-all, simulated alone (MoE with ep > 1)
  engine::TaskGraph cp_probe; // one context-parallel key/value all-gather, simulated alone (cp > 1)
  engine::TaskId end = -1;
  int tp_collectives = 0;     // how many tensor-parallel all-reduces reuse the probe's duration
  int ep_collectives = 0;     // how many expert-parallel all-to-alls reuse the ep probe's duration
  int cp_collectives = 0;     // how many context-parallel exchanges reuse the cp probe's duration
  int simulated_replicas = 0; // data-parallel replicas whose compute and pipeline traffic were simulated
  double peer_copy_s = 0;     // ZeRO-3 with per-peer buffers: one rank's copy launches in the iteration
  // With tp_comm_overlap: the GEMMs a layer's tensor-parallel communications overlap with.
  std::optional<workload::TpOverlapGemms> tp_overlap_gemms;
  workload::TpOverlapConfig tp_overlap;
  std::vector<CombinedStep> combined_steps; // with workload.overlap_ep_comm: by TaskInfo::ep_step
  /// With workload.communication.algorithm: auto, what NCCL's tuner picked for the collectives lowered
  /// so far on the run's lowering (this build's and the builds before it on the same lowering).
  std::vector<NcclPick> nccl_picks;
  double tp_fwd_each_s = 0; // set by apply_probe: what one fused forward (backward) all-reduce adds to its
  double tp_bwd_each_s = 0; //   task: the probe's duration, or with tp_comm_overlap its exposed part

  /// Fixes the fused tasks' durations once the probe's tensor-parallel all-reduce time is known.
  void apply_probe(double tp_collective_s, double ep_collective_s = 0, double cp_collective_s = 0);
  double ep_each_s = 0; // set by apply_probe: one expert-parallel all-to-all alone (the probe's duration)
  /// The expert-parallel communication time a task's all-to-alls add to it (after apply_probe): each
  /// alone, or what a combined step's expose beside the other pass.
  [[nodiscard]] double ep_exposed_s(const TaskInfo& ti) const {
    return ti.ep_step >= 0 ? ti.ep_step_exposed_s : ti.ep_collectives * ep_each_s;
  }
  /// The tensor-parallel communication time a task's fused collectives add to it (after apply_probe).
  [[nodiscard]] double tp_exposed_s(const TaskInfo& ti) const {
    return (ti.tp_collectives - ti.tp_bwd_collectives) * tp_fwd_each_s +
           ti.tp_bwd_collectives * tp_bwd_each_s;
  }
};

/// Host-side work of the iteration besides communication: the framework's kernel-launch threads, the
/// input pipeline, and infrastructure agents.
struct HostSide {
  double launch_s_per_kernel = 0;           // host CPU time to launch one kernel (booked as framework time)
  bool couple_launch = false;               // compute tasks carry their launch threads as loads on the host
  const datapath::DataPath* path = nullptr; // where storage reads and agents run
  std::optional<scenario::DataConfig> data;
  double storage_read_rate = 0;      // bytes/s of each storage server's media
  double storage_read_latency_s = 0; // one sample read's median latency before its bytes flow (0: none)
  int storage_connections = 1;       // TCP connections of a node's host storage client, one core each
  double agent_cores = 0;            // per node, in host cores
  offload::Site agent_site = offload::Site::host;
  double arm_cores_per_host_core = 1; // Arm cores that do the work of one host core
  // >0: this iteration also writes a checkpoint of this many bytes per GPU, after the optimizer step
  // (GPUs wait) or, `checkpoint_async`, from the iteration's start (overlapping it).
  double checkpoint_bytes_per_gpu = 0;
  bool checkpoint_async = false;
  double storage_write_rate = 0;                // bytes/s of each storage server's media
  const scenario::Scenario* scenario = nullptr; // for models that read settings of their own
};

/// `costs` has one entry per virtual stage (pp x virtual_stages). With `representative` set, only
/// data-parallel replica 0 computes and sends activations; collectives still span every replica. Once
/// the schedule is built, each of `extensions` adds its host-side tasks, in order.
IterationPlan build_iteration(const scenario::WorkloadConfig& w, const std::vector<StageCosts>& costs,
                              platform::RouteRegistry& routes, CollectiveLowering& lowering,
                              bool representative, const HostSide& host = {},
                              const std::vector<const IterationExtension*>& extensions = {});

/// The host-side tasks `extensions` add to an iteration that has nothing else (no GPU work, nothing to
/// wait for): what a synchronous checkpoint writes, simulated alone where nothing else overlaps it.
IterationPlan build_host_tasks(platform::RouteRegistry& routes, const HostSide& host,
                               const std::vector<const IterationExtension*>& extensions);

} // namespace dpusim::plan
