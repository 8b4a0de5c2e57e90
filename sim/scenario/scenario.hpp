// A scenario as the simulator uses it: typed, units checked, catalog references resolved to names that
// exist, and the whole configuration validated (parallelism covers the GPUs, the model fits in memory).
#pragma once

#include "models/base/input_error.hpp"
#include "models/base/units.hpp"
#include "models/workload/expert_routing.hpp"
#include "models/workload/memory.hpp"
#include "models/workload/parallelism.hpp"
#include "models/workload/transformer.hpp"
#include "sim/offload/variant.hpp"
#include "sim/topology/fabric_kind.hpp"

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dpusim::scenario {

/// A fabric the user already has: its switches, whatever the cluster on it uses.
struct OwnedFabric {
  int leaves = 0;
  int spines = 0;
  int cores = 0;
  [[nodiscard]] int switches() const { return leaves + spines + cores; }
};

struct FabricConfig {
  topology::FabricKind kind = topology::FabricKind::fat_tree;
  int tiers = 0; // 2 or 3; 0: the fewest that hold the cluster
  units::DataRate link;
  units::Seconds latency;
  double oversubscription = 1.0;
  double core_oversubscription = 1.0; // three tiers: pod spines' down-links to their core up-links
  std::string switch_model;           // catalog switch
  topology::Routing routing = topology::Routing::ecmp;
  std::optional<OwnedFabric> owned; // absent: the fabric is sized as its builder would buy it
};

/// Services every node runs besides training, whatever runs them (host, NIC or DPU).
struct Services {
  offload::Encryption encryption = offload::Encryption::none; // encryption in transit of inter-node traffic
  bool overlay = false;                                       // VXLAN overlay through a virtual switch
  double agent_cores = 0; // infrastructure agents (telemetry, monitoring...)
};

/// Storage servers on the training fabric that the data loaders read from.
struct StorageConfig {
  int servers = 0;
  units::DataRate link;          // each server's network port
  units::DataRate read_rate;     // each server's media read throughput
  units::DataRate write_rate;    // each server's media write throughput (default: read_rate)
  int client_connections = 1;    // TCP connections of a node's host storage client (NFS nconnect)
  std::optional<int> snap_cores; // Arm cores of each DPU that SNAP polls with (absent: the catalog's)
  bool separate_fabric = false;  // servers on a storage fabric of their own (else the training leaves)
  units::DataRate node_link;     // with separate_fabric: each tray's storage port
  // With separate_fabric: the catalog NIC or DPU of each tray's storage port (empty: a plain port of
  // node_link). A DPU there runs the storage client (SNAP) and the agents placed on dpu_arm.
  std::string node_nic;
  // One sample read's latency before its bytes flow (read_latency: {median, p99}); absent: none.
  std::optional<units::Seconds> read_latency_median;
  std::optional<units::Seconds> read_latency_p99;
};

/// Other tenants' jobs sharing the fabric: `flows` bulk flows per leaf that cross the leaf-spine links
/// without end. `dpu_qos`: variants running on the DPU have the DPUs of every tenant enforce rate
/// limits that leave this job `guarantee` of each leaf's up-links; other variants share plainly.
struct TenantsConfig {
  int flows = 0;
  bool dpu_qos = false;
  double guarantee = 0; // with dpu_qos: given by the scenario (no default)
};

struct ClusterConfig {
  int nodes = 1;
  int gpus_per_node = 0; // GPUs used in each node (0: all of the node's)
  std::string node;      // catalog node
  std::string nic;       // catalog NIC (the node's default when absent)
  std::string dpu;       // catalog DPU for the dpu variant (empty: none available)
  FabricConfig fabric;
  Services services;
  StorageConfig storage;
  TenantsConfig tenants;
  /// The scheduler's placement of the job's nodes on the fabric (sim/model/placement): false packed (in
  /// rank order), true scattered (drawn from the job's seed).
  bool scattered = false;
};

/// The input pipeline of each data-parallel replica: `workers` loader processes (one core each) read
/// `sample` bytes per sample from storage and spend `decode` host core-seconds per sample (decode,
/// augmentation, collation); `prefetch` micro-batches are queued ahead of the GPUs.
struct DataConfig {
  units::Bytes sample;
  units::Seconds decode;
  int workers = 1;
  int prefetch = 2;
};

/// Periodic checkpoints: every `every` iterations each GPU writes its share of the model and optimizer
/// state to the storage servers (fully parallel save), through the storage client's placement.
struct CheckpointConfig {
  int every = 0;                            // iterations between checkpoints (0 where given as a time)
  std::optional<units::Seconds> every_time; // or the time between them, made iterations per variant
  /// The iterations between checkpoints of a variant whose plain step takes `step_s`: `every`, or as
  /// many whole steps as fit in `every_time` (at least one).
  [[nodiscard]] int iterations(double step_s) const;
  /// "500 iterations" or "30min".
  [[nodiscard]] std::string describe() const;
  bool async = false;               // false: GPUs wait for the write; true: it overlaps the next iteration
  std::optional<units::Bytes> size; // per GPU; default: weights + optimizer state of the largest stage
};

struct WorkloadConfig {
  workload::TransformerShape model;
  std::string model_origin; // "catalog" or "inline"
  int seq_len = 0;
  int global_batch = 0;
  int micro_batch = 1;
  workload::Parallelism parallelism;
  workload::Precision precision = workload::Precision::bf16;
  workload::Recompute recompute = workload::Recompute::none;
  bool sequence_parallel = false;
  workload::AttentionKernel attention = workload::AttentionKernel::flash;
  bool overlap_grad_reduce = true;
  // Parameter all-gathers overlapped with the forward pass: ZeRO-3 prefetches the next layer's during
  // this layer; ZeRO-1/2 (Megatron-Core's distributed optimizer) gathers each bucket during the first
  // micro-batch's forward instead of after the optimizer step. Absent: true for ZeRO-3 (FSDP's
  // prefetch), false for ZeRO-1/2 (Megatron-Core's default). See param_gather_overlapped().
  std::optional<bool> overlap_param_gather;
  // ZeRO-1/2, interleaved: every stage dispatches its chunks' parameter gathers at the iteration's start
  // (Megatron-Core's align_param_gather) instead of at each chunk's first forward.
  bool align_param_gather = false;
  // Tensor-parallel communication overlapped with the GEMMs around it (Transformer Engine's userbuffers,
  // Megatron-Core's --tp-comm-overlap; needs sequence parallelism).
  bool tp_comm_overlap = false;
  bool overlap_p2p = true;  // pipeline sends run beside the sender's next computation (false: it waits)
  units::Bytes grad_bucket; // gradient bytes per data-parallel all-reduce bucket
  double grad_bytes_per_param = 4; // fp32 main gradients are reduced (Megatron default under bf16)
  int zero_stage =
      0; // 1: optimizer state sharded (Megatron's distributed optimizer), 2: +gradients, 3: +weights
  // ZeRO-3 hands its collectives one tensor per peer (PyTorch's list API, as DeepSpeed did before
  // all_gather_into_tensor): every gather and reduce-scatter launches one copy per peer and weight matrix.
  bool zero_per_peer_buffers = false;
  int virtual_stages = 1;                     // interleaved 1F1B: model chunks per GPU
  std::optional<DataConfig> data;             // absent: input loading is not simulated (negligible for text)
  std::optional<CheckpointConfig> checkpoint; // absent: no checkpoint is simulated
  std::optional<workload::ExpertRouting> routing; // absent: balanced, dropless (a mixture of experts)
  std::string collective_algorithm = "ring";      // ring | tree | hierarchical | nvls (NCCL_ALGO) | auto
  // How expert-parallel dispatches and combines run: NCCL's all-to-all (every copy sent, PXN), or as
  // DeepEP does (once per node over RDMA, then NVLink; collectives::expert_dispatch).
  bool ep_dispatch_per_node = false;
  // With it: the forward dispatch in FP8 with a scale per 128 values (DSV3-TR section 3.3); the combine
  // and the backward pass's exchanges stay 16-bit.
  bool ep_dispatch_fp8 = false;
  // Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm): in the steady state each stage runs
  // one micro-batch's forward beside another's backward, every all-to-all beside the other's computation
  // (models/workload/ep_overlap.hpp); the communication kernels take ep_comm_sms of the GPU's SMs while
  // they run (20: DeepEP's with the overlap, DSV3-TR section 3.2.2).
  bool overlap_ep_comm = false;
  std::optional<int> ep_comm_sms;    // absent: 20
  std::optional<int> socket_threads; // cores per socket-transport connection (NCCL_SOCKET_NTHREADS x NSOCKS)
  std::optional<int> qps_per_connection; // NCCL_IB_QPS_PER_CONNECTION (absent: the catalog's)
  std::optional<bool> pxn;               // absent: the catalog's (NCCL_PXN_DISABLE)
  // The activities each node's all-to-all sends are simulated as, by destination node
  // (plan::CollectiveLowering::set_alltoall_parts).
  int alltoall_parts = 1;
  // Megatron's --fp8-param-gather: the parameters are kept in the low-precision format, so the sharded
  // optimizer gathers them in it and no 16-bit copy of the weights is held.
  bool fp8_param_gather = false;

  /// Bytes per parameter of a parameter all-gather: the format's with fp8_param_gather, else 16 bits.
  [[nodiscard]] double param_gather_bytes() const {
    return fp8_param_gather ? workload::element_bytes(precision) : 2.0;
  }
  [[nodiscard]] bool param_gather_overlapped() const {
    return overlap_param_gather.value_or(zero_stage >= 3);
  }
  [[nodiscard]] int micro_batches() const { // at most global_batch; the product is taken in 64 bits
    return static_cast<int>(global_batch / (static_cast<std::int64_t>(micro_batch) * parallelism.dp));
  }
};

/// The published result a validation scenario reproduces.
struct Validation {
  std::string metric; // tflops_per_gpu | iteration_time_ms | mfu (model FLOPs over the dense peak)
  double published = 0;
  std::string table; // groups rows for the error summary
  std::string source;
  std::vector<std::string> assumptions;
};

struct Scenario {
  std::string file;
  std::string name;
  std::string description;
  ClusterConfig cluster;
  WorkloadConfig workload;
  std::string baseline;
  std::vector<offload::Variant> variants; // baseline first, then the others, without duplicates
  /// The job's draw: what stays fixed for a job's life and changes between launches (each queue pair's
  /// ECMP hash, which GPUs run slow); the step's draws too unless step_seed is given.
  std::uint64_t seed = 1;
  /// The step's draws: what changes from one step of a job to the next (kernel jitter and delays,
  /// software-latency tails, OS noise, node stalls, where a flapping link is in its period). None: seed.
  std::optional<std::uint64_t> step_seed;
  [[nodiscard]] std::uint64_t step_draw_seed() const { return step_seed.value_or(seed); }
  std::string calibration; // path of a calibration profile, empty when none
  std::string gpu_profile; // a validated software-stack profile of the catalog (gpu_profiles/), or empty
  // Take the profile's machine shape (core counts) even where it differs from the node's; by default
  // only a profile measured on a machine of the node's shape sets it (per-core rates are always taken).
  bool calibration_shape = false;
  std::optional<Validation> validation;
  /// Settings of models that read a section of their own (model::Model::read), by section name: a
  /// model adds its settings without a field here.
  std::map<std::string, std::any, std::less<>> extensions;

  template <class T>
  [[nodiscard]] const T* extension(std::string_view section) const {
    const auto it = extensions.find(section);
    return it == extensions.end() ? nullptr : std::any_cast<T>(&it->second);
  }

  /// What the scenario asks of the offloadable functions.
  [[nodiscard]] offload::Requirements requirements() const;
  [[nodiscard]] const offload::Variant* find_variant(const std::string& name) const;
};

} // namespace dpusim::scenario
