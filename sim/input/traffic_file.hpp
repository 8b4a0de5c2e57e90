// A traffic file: raw flows for the fabric alone, instead of a training job (`dpusim traffic`,
// docs/traffic.md). Groups of flows written as the patterns network engineers test fabrics with
// (incast, permutation, shift, all-to-all, single flows) between hosts, a host being one GPU of the
// scenario's cluster and the NIC it sends through; each group has its message size and start time, or
// runs as background traffic for as long as the others do. A group may also be one collective (an
// all-reduce, all-gather, reduce-scatter or all-to-all among its hosts, lowered as a training run
// lowers it).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::input {

enum class TrafficPattern {
  flow,
  incast,
  permutation,
  shift,
  all_to_all,
  all_reduce,
  all_gather,
  reduce_scatter,
  alltoall
};
inline constexpr std::string_view kTrafficPatterns[] = {"flow",       "incast",         "permutation",
                                                        "shift",      "all_to_all",     "all_reduce",
                                                        "all_gather", "reduce_scatter", "alltoall"};
/// A pattern that is one collective operation among its hosts rather than independent flows (named as
/// nccl-tests names its tests: `alltoall` is NCCL's all-to-all as one operation, where `all_to_all` is
/// every pair's flow timed on its own).
inline bool collective_pattern(TrafficPattern p) {
  return p == TrafficPattern::all_reduce || p == TrafficPattern::all_gather ||
         p == TrafficPattern::reduce_scatter || p == TrafficPattern::alltoall;
}
/// The algorithms and protocols a collective group may name (NCCL_ALGO, NCCL_PROTO).
inline constexpr std::string_view kTrafficAlgorithms[] = {"ring", "tree"};
inline constexpr std::string_view kTrafficProtocols[] = {"simple", "ll", "ll128"};

/// Most flows one file may expand to (an all-to-all among 1,000 hosts is 999,000).
inline constexpr std::size_t kMaxTrafficFlows = 1'000'000;

struct TrafficFlow {
  int group = 0; // index into Traffic::groups
  int src = 0;   // host (GPU rank of the cluster)
  int dst = 0;
  double bytes = 0;   // 0 for a background flow
  double start_s = 0; // after the start of the run
};

struct TrafficGroup {
  std::string name;
  TrafficPattern pattern = TrafficPattern::flow;
  /// Runs from the start for as long as any other flow does (other tenants' bulk traffic), then stops;
  /// its flows have no size and are not timed.
  bool background = false;
};

/// A collective group: one operation among `hosts` (its ranks, which the lowering orders by node as
/// NCCL does), each rank's buffer `bytes` as nccl-tests counts it (an all-reduce's whole buffer, an
/// all-gather's output).
struct TrafficCollective {
  int group = 0; // index into Traffic::groups
  std::vector<int> hosts;
  double bytes = 0;
  double start_s = 0;
  std::string algorithm = "ring";  // one of kTrafficAlgorithms; "direct" for an all-to-all
  std::string protocol = "simple"; // one of kTrafficProtocols
  // An all-to-all's activities a node (CollectiveLowering::set_alltoall_parts); absent: the fabric
  // scenario's workload.communication.alltoall_parts.
  std::optional<int> parts;
};

struct Traffic {
  std::string file;
  /// NCCL's PXN (a GPU's sends to another rail leave through the NIC of the local GPU on that rail): the
  /// catalog's setting unless the file says `pxn: false` (NCCL_PXN_DISABLE=1).
  bool pxn = true;
  std::vector<TrafficGroup> groups;
  std::vector<TrafficFlow> flows;             // group by group, in file order
  std::vector<TrafficCollective> collectives; // the collective groups, in file order
};

/// Reads a traffic file for a cluster of `hosts` GPUs; `seed` draws the permutations that do not name
/// their own. Throws InputError (file:line:column, key, what was found, what is valid) on any problem.
Traffic load_traffic(const std::string& path, int hosts, unsigned long long seed);
Traffic parse_traffic(const std::string& text, const std::string& name, int hosts, unsigned long long seed);

std::string_view traffic_pattern_name(TrafficPattern p);

} // namespace dpusim::input
