// NCCL's own choice of algorithm and protocol for a collective of a given size: the latency and
// bandwidth model of its tuner (ncclTopoTuneModel and ncclTopoGetAlgoTime, src/graph/tuning.cc), which
// NCCL evaluates for every enabled (algorithm, protocol) and runs the one with the least predicted time.
// dpusim uses it to pick what NCCL would pick; the time it reports is then simulated, never this
// model's prediction. The model's constants are NCCL's (NCCL-TUNE-230 in the catalog's sources); the
// bandwidths NCCL's topology search would find are taken from the node's hardware (its NVLink and NICs
// at the efficiencies the catalog gives them). See docs/models/collectives.md ("NCCL's choice").
#pragma once

#include "models/collectives/collective.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace dpusim::collectives {

/// The algorithms NCCL's tuner weighs that dpusim simulates. NVLS is NVLink SHARP on one node;
/// NVLS-tree its multi-node all-reduce (NVLS inside each node, trees across). CollNet (in-network
/// reduction) and PAT are not simulated and never chosen.
enum class TunerAlgorithm { tree, ring, nvls, nvls_tree };
/// NCCL's protocols, in its order (NCCL_PROTO_LL, NCCL_PROTO_LL128, NCCL_PROTO_SIMPLE).
enum class TunerProtocol { ll, ll128, simple };
std::string_view tuner_algorithm_name(TunerAlgorithm a);

/// NCCL's compute-capability classes, which index its bandwidth caps.
enum class GpuGeneration { volta, ampere, hopper, blackwell };
/// The class of a compute capability (7.0 Volta, 8.x Ampere, 9.x Hopper, 10 and later Blackwell).
GpuGeneration gpu_generation(double compute_capability);

struct TunerInput {
  CollectiveKind kind = CollectiveKind::all_reduce;
  int ranks = 1;
  int nodes = 1;
  GpuGeneration generation = GpuGeneration::hopper;
  bool amd_host = false; // NCCL's LL bandwidth caps and network overhead differ on AMD hosts
  bool x86_host = true;  // NCCL corrects the NVLS-tree's medium sizes on Blackwell with x86 hosts
  /// Channels the ring and tree run on (NCCL's nChannels).
  int channels = 2;
  /// Bus bandwidth of all channels together, GB/s: inside a node (NVLink, or PCIe without it) and
  /// across nodes (the NICs a node's ranks use).
  double intra_gbps = 0;
  double inter_gbps = 0;
  /// NVLink's own bandwidth a GPU (GB/s, per direction): on one node, what NCCL's NVLS search finds for
  /// the GPUs' pulls from the switch (its graph's bwInter there).
  double nvlink_gbps = 0;
  bool nvlink = true;    // ranks of a node talk over NVLink (else PCIe): NCCL's hardware latencies
  bool nvls = false;     // the NVSwitch can reduce (NVLS)
  bool gpudirect = true; // the network path is GPUDirect RDMA (LL128 runs across nodes only then)
  bool tree_ok = true;   // the tree may be chosen (dpusim simulates it across nodes only)
  bool ll = true;        // the library entry has LL's costs
  bool ll128 = true;     // ... LL128's
  /// Restrict the choice (NCCL_ALGO / NCCL_PROTO); nullopt: all that apply.
  std::optional<TunerAlgorithm> algorithm;
  std::optional<TunerProtocol> protocol;
};

/// NCCL's model of one (algorithm, protocol): fixed latency (us) and algorithm bandwidth (GB/s, i.e.
/// bytes per ns / 1000 as NCCL keeps it); bandwidth 0 where the pair does not apply.
struct TunerEntry {
  TunerAlgorithm algorithm = TunerAlgorithm::ring;
  TunerProtocol protocol = TunerProtocol::simple;
  double latency_us = 0;
  double bandwidth_gbps = 0;
};

/// Every (algorithm, protocol) the model weighs for the input, enabled or not (bandwidth 0).
std::vector<TunerEntry> tuner_table(const TunerInput& in);
/// NCCL's predicted time (us) of an entry for `bytes` (ncclTopoGetAlgoTime: tree correction factors,
/// the ring's plateau); a negative value where the entry does not apply.
double tuner_time_us(const TunerInput& in, const TunerEntry& e, double bytes);
/// What NCCL runs for `bytes`: the enabled entry of least predicted time (NCCL's order breaks ties).
/// nullopt where nothing applies (e.g. a restriction that rules everything out).
std::optional<TunerEntry> tuner_choice(const TunerInput& in, double bytes);

} // namespace dpusim::collectives
