// Lowers a collective or a point-to-point transfer to what the engine executes: the flows of each
// pipelined ring (all hops of a ring progress together, at the pace of its slowest; rings — NCCL's
// channels — progress independently), the CPU work a host-TCP transport costs on both ends, and the
// per-step latencies of the ring.
#pragma once

#include "sim/engine/task_graph.hpp"
#include "sim/platform/platform_builder.hpp"
#include "sim/scenario/hardware.hpp"

#include <vector>

namespace dpusim::plan {

enum class CollectiveKind { all_reduce, all_gather, reduce_scatter };

/// Flows (and the host CPU work they cost) that progress together at one rate.
struct Transfer {
  std::vector<engine::Flow> flows;
  std::vector<engine::Load> loads; // host CPU work (TCP stack), one entry per busy core
};

struct Lowered {
  std::vector<Transfer> parts; // independent parts (one per ring); the operation ends when all have
  double latency_s = 0;        // to charge before the transfer (the transfer itself adds one route latency)
  double cpu_core_s = 0;       // total host CPU core-seconds of the loads
  std::vector<int> nics;       // NICs crossed (for the timeline)
  int rings = 0;
  int steps = 0;
  bool intra_node_hops = true; // false: a multi-node ring's NVLink hops were left out (never its bottleneck)

  /// Adds another operation to run at the same time. With `zip`, part i of `other` joins part i of this
  /// one (for symmetric operations that progress alike, such as the same ring of every tensor-parallel
  /// rank); otherwise its parts are added as independent ones.
  void merge(const Lowered& other, bool zip);
};

class CollectiveLowering {
public:
  CollectiveLowering(platform::PlatformBuilder& platform, const scenario::Hardware& hw,
                     offload::Transport transport);

  /// Ring collective over `gpus` (global GPU ids) of `bytes` per rank. One ring per NIC a node
  /// contributes, as NCCL opens one channel per NIC; data is split evenly over the rings.
  Lowered ring(CollectiveKind kind, std::vector<int> gpus, double bytes);
  /// Point-to-point send of `bytes` from one GPU to another.
  Lowered p2p(int src_gpu, int dst_gpu, double bytes);

private:
  void add_hop(Lowered& out, Transfer& part, int src, int dst, double payload);

  platform::PlatformBuilder& platform_;
  const scenario::Hardware& hw_;
  offload::Transport transport_;
};

} // namespace dpusim::plan
