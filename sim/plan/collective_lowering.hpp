// Lowers a collective or a point-to-point transfer to what the engine executes: the flows of each
// pipelined ring or tree (all hops of a ring or tree progress together, at the pace of its slowest;
// rings and trees — NCCL's channels — progress independently), the CPU work a host-TCP transport costs
// on both ends, and the per-step latencies. Algorithms: NCCL's ring, double binary tree and NVLink
// SHARP (NVLS, with a tree across nodes), and a hierarchical all-reduce run as three collectives in
// sequence (a Lowered with phases). Each algorithm's structure — which ranks exchange how many bytes,
// in which channels and steps — is platform-free code in models/collectives/ (one file per algorithm);
// this class puts it on the platform's routes. See docs/models/collectives.md.
#pragma once

#include "models/collectives/collective.hpp"
#include "models/collectives/expert_dispatch.hpp"
#include "sim/datapath/data_path.hpp"
#include "sim/engine/task_graph.hpp"
#include "sim/plan/collective_algorithm.hpp"
#include "sim/plan/nccl_choice.hpp"
#include "sim/platform/route_registry.hpp"
#include "sim/scenario/hardware.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace dpusim::plan {

/// `bytes` of a collective is per rank: the buffer of an all-reduce, the input of a reduce-scatter,
/// the output of an all-gather, the send buffer of an all-to-all (bytes/N to each rank).
using collectives::CollectiveKind;

/// Flows (and the host CPU work they cost) that progress together at one rate.
struct Transfer {
  std::vector<engine::Flow> flows;
  std::vector<engine::Load> loads; // host CPU work (TCP stack), one entry per busy core
};

/// Most flows and loads in one part made by zipping symmetric operations together (Lowered::merge).
inline constexpr std::size_t kMaxZippedEntries = 2048;
/// Most hops of a ring simulated as one part; a longer ring runs as consecutive segments, each at its own
/// bottleneck (docs/models/collectives.md): SimGrid's solver pays for a part with the square of the
/// links it holds, so a ring of n hops in one part costs n^2, in segments n.
inline constexpr std::size_t kRingSegmentHops = 128;

struct Lowered {
  std::vector<Transfer> parts; // independent parts (one per ring); the operation ends when all have
  double latency_s = 0;        // to charge before the transfer (the transfer itself adds one route latency)
  datapath::CoreSeconds host_core_s{}; // host CPU core-seconds of the loads, by function
  datapath::CoreSeconds arm_core_s{};  // DPU Arm core-seconds of the loads, by function
  std::vector<int> nics;               // NICs crossed (for the timeline)
  int rings = 0;
  int steps = 0;
  bool intra_node_hops = true; // false: NVLink hops were left out (never the bottleneck)
  /// Network steps whose latency includes the transport's software latency as the expected largest of
  /// `tail_hops` concurrent draws (DataPath::step_latency_s); a noise model may draw them instead.
  int tail_steps = 0;
  int tail_hops = 1;

  /// Phases that run one after another: phase i+1 starts once every part of phase i has ended. Empty
  /// for a single-phase operation (latency_s, then parts). Otherwise `parts` is empty and the fields
  /// above summarise the phases (latencies, CPU work and steps added, NICs joined, most rings); run
  /// it with `append_to_graph` or phase by phase through `phase(i)`.
  std::vector<Lowered> phases;

  [[nodiscard]] double host_cpu_core_s() const;
  [[nodiscard]] std::size_t phase_count() const { return phases.empty() ? 1 : phases.size(); }
  /// Phase i; a single-phase operation is its own phase 0.
  [[nodiscard]] const Lowered& phase(std::size_t i) const { return phases.empty() ? *this : phases.at(i); }

  /// Adds another operation to run at the same time. With `zip`, part i of `other` joins part i of this
  /// one (for symmetric operations that progress alike, such as the same ring of every tensor-parallel
  /// rank), up to kMaxZippedEntries flows and loads per part, beyond which it runs as a part of its own;
  /// otherwise its parts are added as independent ones. Operations with phases are merged phase by phase
  /// (a single-phase one runs alongside phase 0).
  void merge(const Lowered& other, bool zip);
};

/// What `append_to_graph` adds, so that a caller can label or annotate each task.
enum class LoweredTaskRole { latency, part, join };

/// Adds one task to the graph and returns its id (a caller's bookkeeping hook; the default just adds).
using AddLoweredTask =
    std::function<engine::TaskId(engine::Task task, LoweredTaskRole role, std::size_t phase)>;

struct GraphFragment {
  engine::TaskId first = -1;         // latency task of phase 0: starts after every `after`
  engine::TaskId last = -1;          // ends when the whole operation has ended
  std::vector<engine::TaskId> tasks; // every task added, in order
};

/// Chains the phases of `low` into `graph` after the tasks `after`: per phase a delay task (its
/// latency), its parts as transfer tasks after it, and a join when it has several parts; each phase's
/// latency task waits for the previous phase's end. `add`, when given, must add its task to `graph`.
GraphFragment append_to_graph(engine::TaskGraph& graph, const Lowered& low,
                              const std::vector<engine::TaskId>& after, const AddLoweredTask& add = {});

class CollectiveLowering {
public:
  /// `path` says what processor time each network hop costs and what latency it adds.
  CollectiveLowering(platform::RouteRegistry& routes, const scenario::Hardware& hw,
                     const datapath::DataPath& path);
  /// Rings longer than `hops` simulated hops run as segments of at most that many (kRingSegmentHops
  /// unless set; at least 1).
  void set_ring_segment_hops(std::size_t hops) { ring_segment_hops_ = std::max<std::size_t>(1, hops); }
  /// The activities each node's all-to-all (and expert dispatch) sends are simulated as, split by
  /// destination node (collectives::DestinationRuns; 1 unless set, at least 1): more move closer to
  /// the flows they stand for where ECMP collides, at a cost in the solver (docs/models/collectives.md).
  void set_alltoall_parts(int parts) { alltoall_parts_ = std::max(1, parts); }
  /// NCCL's protocol of the collectives lowered from now on (Simple unless set): its per-step and
  /// per-collective latencies and its share of each link's bandwidth (point-to-point sends keep
  /// Simple's bytes). Throws std::invalid_argument where the catalog entry lacks the protocol.
  void set_protocol(catalog::NcclProtocol protocol);

  /// Ring collective over `gpus` (global GPU ids) of `bytes` per rank. One ring per NIC a node
  /// contributes, as NCCL opens one channel per NIC; data is split evenly over the rings. An all-to-all
  /// has no ring form and is lowered by `all_to_all`.
  Lowered ring(CollectiveKind kind, std::vector<int> gpus, double bytes);
  /// Point-to-point send of `bytes` from one GPU to another.
  Lowered p2p(int src_gpu, int dst_gpu, double bytes);

  /// The collective with the given algorithm. Where an algorithm does not apply (see each below) the
  /// ring is used, as NCCL falls back to it; an all-to-all is always direct sends. `tuned` lowers what
  /// NCCL's tuner picks for this group at `bytes` (nccl_choice), in the protocol it picks.
  Lowered collective(CollectiveKind kind, CollectiveAlgorithm algo, std::vector<int> gpus, double bytes);
  /// NCCL's double binary tree all-reduce across nodes (a chain over NVLink inside each node, two
  /// complementary binary trees over the nodes, each carrying half the data; reduce up and broadcast
  /// down pipelined). Only all-reduce, and only across nodes: otherwise the ring.
  Lowered tree(CollectiveKind kind, std::vector<int> gpus, double bytes);
  /// Intra-node reduce-scatter over NVLink, inter-node all-reduce of each GPU's 1/k shard with the
  /// same GPU of every other node (its own rail), intra-node all-gather: three phases (reduce-scatter
  /// and all-gather have two). Needs the same number (at least two) of GPUs in each of several nodes;
  /// otherwise the ring.
  Lowered hierarchical(CollectiveKind kind, std::vector<int> gpus, double bytes);
  /// NVLink SHARP: the NVSwitch reduces and multicasts, so each GPU sends S up and receives S back.
  /// Across nodes, a double binary tree over each rail carries every GPU's 1/k shard, pipelined with
  /// the switch (NCCL's NVLS-tree). All-reduce on one node or several; reduce-scatter and all-gather on
  /// one node. Otherwise — or where the GPU has no NVLS — the ring.
  Lowered nvls(CollectiveKind kind, std::vector<int> gpus, double bytes);
  /// Every rank sends bytes/N to every other rank: direct sends, NVLink inside a node; across nodes
  /// over the NIC on the destination's rail (GPUDirect RDMA forwards over NVLink to the local GPU on
  /// that rail first, as NCCL's PXN does). One part per source node (set_alltoall_parts: more, by
  /// destination node): SimGrid's solver slows with the number of activities far more than with their
  /// flows.
  Lowered all_to_all(std::vector<int> gpus, double bytes);
  /// The same, each rank sending the i-th of `gpus` `shares[i]` of its bytes (uneven expert routing).
  Lowered all_to_all(std::vector<int> gpus, double bytes, const std::vector<double>& shares);
  /// An expert-parallel dispatch as DeepEP runs it (collectives::expert_dispatch): once over RDMA to each
  /// node a token reaches, then over NVLink to each GPU there; one part per source node (or
  /// set_alltoall_parts' runs of destination nodes).
  Lowered expert_dispatch(std::vector<int> gpus, const collectives::ExpertDispatch& d);
  /// Independent point-to-point sends of `bytes` each, one part per pair (src, dst).
  Lowered send_recv(const std::vector<std::pair<int, int>>& pairs, double bytes);

  /// What NCCL's tuner picked for the `tuned` collectives lowered so far.
  [[nodiscard]] const std::vector<NcclPick>& nccl_picks() const { return picks_; }

  /// Whether the GPU's NVSwitch can reduce (NVLS); false lowers `nvls` as the ring.
  [[nodiscard]] bool nvls_available() const;

private:
  enum class Protocol { collective, p2p };
  /// Sends posted at once, one part per channel of `plan` (an all-to-all's or a dispatch's).
  Lowered direct_sends(const collectives::AllToAllPlan& plan);
  void add_hop(Lowered& out, Transfer& part, int src, int dst, double payload,
               Protocol protocol = Protocol::collective);
  void add_flow(Lowered& out, Transfer& part, int src, int dst, double bytes);
  /// Per-step latency; a network step of `concurrent` hops waits for the slowest of their software
  /// latencies. `tree`: a tree's network step (also a ring's of one rank a node, as NCCL's model has it).
  [[nodiscard]] double step_latency(platform::HopKind kind, int concurrent = 1, bool tree = false) const;
  /// Records `steps` network steps of `concurrent` hops whose latency includes the transport's tail.
  void note_tail(Lowered& out, int steps, int concurrent) const;
  void compact_loads(Transfer& part) const;
  /// Largest route latency among the flows of `out`: {NVLink hops, network hops}.
  std::pair<double, double> route_latencies(const Lowered& out);
  void drop_idle_nvlink_flows(Lowered& out);
  /// One part per channel (a ring's or tree's hops, through add_hop), each counted as a ring.
  void add_channels(Lowered& out, const std::vector<collectives::Channel>& channels);
  void finish(Lowered& out, double step_latencies);

  platform::RouteRegistry& routes_; // the routes this lowering asks for
  const platform::HostMap& hosts_;
  const scenario::Hardware& hw_;
  const datapath::DataPath& path_;
  offload::Transport transport_;
  std::size_t ring_segment_hops_ = kRingSegmentHops;
  int alltoall_parts_ = 1;
  catalog::ProtocolCosts costs_; // the protocol's (Simple's unless set_protocol)
  std::vector<NcclPick> picks_;
};

} // namespace dpusim::plan
