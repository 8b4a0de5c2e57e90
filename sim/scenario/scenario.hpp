// A scenario as the simulator uses it: typed, units checked, catalog references resolved to names that
// exist, and the whole configuration validated (parallelism covers the GPUs, the model fits in memory).
#pragma once

#include "models/core/input_error.hpp"
#include "models/core/units.hpp"
#include "models/workload/memory.hpp"
#include "models/workload/parallelism.hpp"
#include "models/workload/transformer.hpp"
#include "sim/topology/topology.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpusim::scenario {

struct FabricConfig {
  topology::FabricKind kind = topology::FabricKind::fat_tree;
  int tiers = 2;
  units::DataRate link;
  units::Seconds latency;
  double oversubscription = 1.0;
  std::string switch_model; // catalog switch
};

struct ClusterConfig {
  int nodes = 1;
  int gpus_per_node = 0; // GPUs used in each node (0: all of the node's)
  std::string node;      // catalog node
  std::string nic;       // catalog NIC (the node's default when absent)
  std::string dpu;       // catalog DPU for the dpu variant (empty: none available)
  FabricConfig fabric;
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
  bool overlap_param_gather = true; // ZeRO-3: prefetch the next layer's parameters during this layer
  units::Bytes grad_bucket;         // gradient bytes per data-parallel all-reduce bucket
  double grad_bytes_per_param = 4;  // fp32 main gradients are reduced (Megatron default under bf16)
  int zero_stage =
      0; // 1: optimizer state sharded (Megatron's distributed optimizer), 2: +gradients, 3: +weights
  int virtual_stages = 1; // interleaved 1F1B: model chunks per GPU

  [[nodiscard]] int micro_batches() const { return global_batch / (micro_batch * parallelism.dp); }
};

/// The published result a validation scenario reproduces.
struct Validation {
  std::string metric; // tflops_per_gpu | iteration_time_ms
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
  std::vector<std::string> variants; // baseline first, then the others, without duplicates
  std::uint64_t seed = 1;
  std::string calibration; // path of a calibration profile, empty when none
  std::optional<Validation> validation;
};

} // namespace dpusim::scenario
