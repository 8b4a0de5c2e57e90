// Closed forms for the time of a collective or a send on a cluster where nothing else runs: the same
// algorithm structures as the simulation (models/collectives/: which ranks exchange how many bytes in
// how many steps), the same catalog rates, efficiencies and latencies, but no routes and no SimGrid. A
// transfer takes its latency plus its busiest resource's bytes over that resource's rate: a NIC port, a
// GPU's NVLink port, a PCIe switch's up-link (host-staged traffic), the cores that run a connection's
// kernel TCP, or a leaf's up-links to the spines (under ECMP, the expected load of the busiest). What
// it leaves out: anything else on the fabric or the host cores at the same time, and one seed's hash
// (docs/models/estimator.md).
#pragma once

#include "models/collectives/collective.hpp"
#include "models/collectives/expert_dispatch.hpp"
#include "sim/datapath/data_path.hpp"
#include "sim/plan/collective_lowering.hpp"
#include "sim/plan/nccl_choice.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/topology/fabric_kind.hpp"
#include "sim/topology/layout.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace dpusim::estimate {

using collectives::CollectiveKind;
using plan::CollectiveAlgorithm;

/// A transfer's time as latency + bytes x seconds_per_byte (both closed forms are linear in bytes).
struct CommCost {
  double latency_s = 0;
  double s_per_byte = 0;
  double host_core_s_per_byte = 0; // kernel TCP and software services, all hosts
  double arm_core_s_per_byte = 0;  // the same on the DPUs' Arm cores
  [[nodiscard]] double time(double bytes) const { return bytes > 0 ? latency_s + bytes * s_per_byte : 0.0; }
};

class CommCosts {
public:
  /// `routing`: ECMP hashes each path onto a spine (the busiest spine sets the pace, at its expected
  /// load); pinned routing, and adaptive routing where the layout is pooled (the device can), spread
  /// evenly. Adaptive routing for a device that cannot falls back to the hash, as in the simulation.
  CommCosts(const topology::ClusterLayout& layout, const scenario::Hardware& hw,
            const datapath::DataPath& path, topology::Routing routing = topology::Routing::ecmp);

  /// One collective of `kind` over each of `groups` at the same time (symmetric groups, such as the
  /// data-parallel groups of every tensor-parallel rank of a stage), per byte per rank.
  [[nodiscard]] CommCost collective(CollectiveKind kind, CollectiveAlgorithm algo,
                                    const std::vector<std::vector<int>>& groups) const;
  /// An all-to-all over each of `groups` at the same time (every expert group of a stage), per byte
  /// of each rank's send buffer; `shares`, where given, is the part of it each rank sends to the i-th
  /// rank of its group (uneven expert routing), else 1/N each.
  [[nodiscard]] CommCost all_to_all(const std::vector<std::vector<int>>& groups,
                                    const std::vector<double>& shares = {}) const;
  /// A per-node expert dispatch (collectives::expert_dispatch) over each of `groups` at once, per byte
  /// of `d.token_bytes`.
  [[nodiscard]] CommCost expert_dispatch(const std::vector<std::vector<int>>& groups,
                                         collectives::ExpertDispatch d) const;
  /// Sends from[i] -> to[i], all at the same time (a pipeline stage's tensor-parallel ranks).
  [[nodiscard]] CommCost sends(const std::vector<int>& from, const std::vector<int>& to) const;

private:
  struct Ring {
    CollectiveKind kind;
    std::vector<int> gpus;
  };
  /// Rings that run at the same time (a phase), per byte of each ring's `bytes` = 1.
  [[nodiscard]] CommCost rings(const std::vector<Ring>& calls) const;
  [[nodiscard]] CommCost tree(const std::vector<std::vector<int>>& groups) const;
  [[nodiscard]] CommCost nvls(const std::vector<std::vector<int>>& groups) const;
  /// Sends posted at once over each of `groups`, as `plan_of` lays them out per byte (an all-to-all's or a
  /// dispatch's).
  [[nodiscard]] CommCost
  direct_sends(const std::vector<std::vector<int>>& groups,
               const std::function<collectives::AllToAllPlan(const std::vector<int>&)>& plan_of) const;
  /// The longest route of a network hop between nodes that span `nodes` consecutive nodes.
  [[nodiscard]] double network_route_s(int nodes) const;
  /// `tree`: a tree's network step, or a ring's of one rank a node (the lowering's choice).
  [[nodiscard]] double network_step_s(int nodes, bool tree = false) const;
  [[nodiscard]] double nvlink_step_s() const;
  [[nodiscard]] int node_of(int gpu) const { return gpu / layout_.node.gpus; }

  topology::ClusterLayout layout_;
  topology::FabricShape shape_;
  const scenario::Hardware& hw_;
  const datapath::DataPath& path_;
  bool hashed_ = true;
  double nvlink_route_s_ = 0;
};

/// The closed forms of NCCL's own choice (`workload.communication.algorithm: auto`), as the lowering
/// runs it: each collective at its size in the algorithm and protocol NCCL's tuner picks for its group
/// (plan::nccl_choice); a protocol's closed forms are CommCosts over the library entry's latencies for
/// it, its payload's share of a link charged as the lowering charges it (a lower collective efficiency).
class NcclCommCosts {
public:
  NcclCommCosts(const topology::ClusterLayout& layout, const scenario::Hardware& hw,
                const datapath::DataPath& path, topology::Routing routing);
  /// What NCCL runs for `group` (global GPU ids) at `bytes` per rank.
  [[nodiscard]] plan::NcclChoice choice(CollectiveKind kind, const std::vector<int>& group,
                                        double bytes) const;
  /// `kind` over each of `groups` at once as `c` runs it, per byte per rank.
  [[nodiscard]] CommCost collective(CollectiveKind kind, const plan::NcclChoice& c,
                                    const std::vector<std::vector<int>>& groups) const;

private:
  struct Protocol {
    catalog::NcclProtocol protocol;
    std::unique_ptr<scenario::Hardware> hw; // the entry's costs for it in place of Simple's
    std::unique_ptr<CommCosts> costs;
  };
  topology::NodeLayout node_;
  const scenario::Hardware& hw_;
  offload::Transport transport_;
  std::vector<Protocol> protocols_;
};

} // namespace dpusim::estimate
