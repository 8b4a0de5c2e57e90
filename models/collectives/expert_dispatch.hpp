// An expert-parallel dispatch as DeepSeek-V3's training runs it (DSV3-TR section 3.2.2; DeepEP's normal
// kernels): a token goes once to each node holding one of its experts, over RDMA to the GPU of the same
// position in that node, which forwards it over NVLink once to each GPU whose experts it reaches; inside
// its own node it goes over NVLink directly. Node-limited routing (at most M nodes a token) bounds the
// RDMA bytes. The combine is the same traffic reversed. See docs/models/collectives.md, "Expert dispatch".
#pragma once

#include "models/collectives/all_to_all.hpp"

namespace dpusim::collectives {

struct ExpertDispatch {
  double token_bytes = 0; // one token's hidden state as sent, times the tokens each rank dispatches
  int top_k = 1;          // experts a token is routed to
  int node_limit = 0;     // nodes a token may reach (0: any)
  // The share of the group's routed token copies each rank's experts process, in the order of the
  // group's GPUs (empty: 1/N each).
  std::vector<double> rank_shares;
};

/// The chance that one token reaches each rank (some expert of it among its top_k) and each node of the
/// group, `nodes` lists each rank's node index (0-based, consecutive). Each of the k copies lands on a
/// rank with its share, independently; under a node limit M < nodes, node n is among the token's M with
/// chance c_n = min(1, M·Q_n) (Q_n: its ranks' shares; M/N each when balanced) and the copies land inside
/// the chosen nodes with the shares over the chosen nodes' expected mass.
struct DispatchReach {
  std::vector<double> rank;
  std::vector<double> node;
};
DispatchReach dispatch_reach(const ExpertDispatch& d, const std::vector<int>& nodes);

/// The dispatch of `d` over `gpus` (`gpus_per_node` GPUs to a node): per source node, one part per run
/// of destination nodes (`parts_per_node`, as all_to_all's: DestinationRuns), its hops summed per
/// (src, dst) pair. No parts for fewer than two ranks or no bytes.
AllToAllPlan expert_dispatch(std::vector<int> gpus, const ExpertDispatch& d, int gpus_per_node,
                             int parts_per_node = 1);

} // namespace dpusim::collectives
