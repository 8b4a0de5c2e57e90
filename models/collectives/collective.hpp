// The vocabulary every collective algorithm's structure is written in: which ranks (global GPU ids)
// exchange how many bytes, grouped into channels — the hops of one pipelined ring or tree, which
// progress together. Pure and platform-free: sim/plan/collective_lowering turns a structure into flows,
// CPU loads and latencies on the platform's routes. One file per algorithm: ring, tree, hierarchical,
// nvls, all_to_all, point_to_point. See docs/models/collectives.md.
#pragma once

#include <cstddef>
#include <map>
#include <string_view>
#include <tuple>
#include <vector>

namespace dpusim::collectives {

/// `bytes` of a collective is per rank: the buffer of an all-reduce, the input of a reduce-scatter,
/// the output of an all-gather, the send buffer of an all-to-all (bytes/N to each rank), the buffer of
/// a broadcast or a reduce (from or to the first rank of the group, its root).
enum class CollectiveKind { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce };
/// "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "broadcast", "reduce".
std::string_view kind_name(CollectiveKind k);
/// A broadcast or a reduce: a chain from or to the root, which NCCL runs on its ring alone.
inline bool rooted(CollectiveKind k) {
  return k == CollectiveKind::broadcast || k == CollectiveKind::reduce;
}

/// `bytes` of data from rank `src` to rank `dst` (before any protocol efficiency).
struct Hop {
  int src = 0;
  int dst = 0;
  double bytes = 0;
};

/// Hops that progress together at the pace of the slowest (one ring, one tree, one source node).
using Channel = std::vector<Hop>;

/// What a node offers a collective: its GPUs and its NICs.
struct NodeShape {
  int gpus = 1;
  int nics = 1;
};

/// Node -> its GPUs of the group, ascending; nodes in ascending order.
using NodeMembers = std::map<int, std::vector<int>>;

/// Sorts `gpus` and groups them by node (`per_node` GPUs to a node).
NodeMembers group_by_node(std::vector<int>& gpus, int per_node);
/// A node's direct sends (an all-to-all's, a dispatch's) split by destination node into `runs()` runs
/// of consecutive nodes, counted on from the sending node (the sends inside it go with the first run):
/// each run's sends are one part, moving at its slowest flow's pace. `parts_per_node` at least 1,
/// clamped to one run a destination node.
class DestinationRuns {
public:
  DestinationRuns(const NodeMembers& by_node, int parts_per_node);
  [[nodiscard]] int runs() const { return runs_; }
  /// The run of node `to`'s sends from node `from` (both nodes of `by_node`).
  [[nodiscard]] int of(int from, int to) const;

private:
  std::map<int, int> place_; // node -> its place among the nodes
  int runs_ = 1;
};
/// One source node's hops: (run, src, dst) -> payload.
using RunHops = std::map<std::tuple<int, int, int>, double>;
/// Appends the hops' parts, one per run that has a hop of some payload, each in ascending (src, dst)
/// order.
void append_runs(const RunHops& hops, int runs, std::vector<Channel>& parts);

/// The fewest members any node has (0 for no node).
std::size_t fewest_members(const NodeMembers& by_node);
/// The same number of members in every node: that number, else 0.
std::size_t uniform_members(const NodeMembers& by_node);

/// Channels of a collective across nodes: one per NIC a node contributes (as NCCL opens one channel
/// per NIC), at most the fewest members of a node, at least one.
int nic_channels(const NodeMembers& by_node, NodeShape node);

/// Member at which channel c enters a node of k members. With fewer NICs than GPUs (`spread`), channels
/// are spread over the members so that they leave and enter through different NICs (GPU i uses NIC
/// i * nics / gpus).
std::size_t channel_offset(int c, std::size_t k, int channels, bool spread);

/// Every node's members from channel c's entry point on (wrapping round), nodes in order.
std::vector<std::vector<int>> channel_chains(const NodeMembers& by_node, int c, int channels, NodeShape node);

} // namespace dpusim::collectives
