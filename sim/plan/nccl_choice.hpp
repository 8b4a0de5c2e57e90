// What NCCL runs for one collective: its tuner's algorithm and protocol (models/collectives/nccl_tuner)
// for a group of ranks on this cluster's nodes, as `dpusim nccl-tests` picks per size and as a training
// run's collectives pick with `workload.communication.algorithm: auto`. The tuner's view of the hardware
// (the bandwidths NCCL's topology search would find) comes from the node's NVLink and the NICs the
// group's ranks use, at the catalog's efficiencies (docs/models/collectives.md, "NCCL's choice").
#pragma once

#include "models/catalog/collective_spec.hpp"
#include "models/collectives/nccl_tuner.hpp"
#include "sim/offload/variant.hpp"
#include "sim/plan/collective_algorithm.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/topology/layout.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::plan {

/// One collective as NCCL runs it: the algorithm dpusim lowers, the protocol and the tuner's name.
struct NcclChoice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  catalog::NcclProtocol protocol = catalog::NcclProtocol::simple;
  collectives::TunerAlgorithm tuned = collectives::TunerAlgorithm::ring;
  friend bool operator==(const NcclChoice&, const NcclChoice&) = default;
};

/// What NCCL's tuner picked for the collectives of one kind over groups of one shape (`auto`), over the
/// sizes it was asked for: what a run says it ran.
struct NcclPick {
  collectives::CollectiveKind kind = collectives::CollectiveKind::all_reduce;
  int nodes = 1;
  int ranks_per_node = 1;
  NcclChoice choice;
  double min_bytes = 0;
  double max_bytes = 0;
  int lowered = 0; // collectives lowered so (each group of a merged operation counts)
};
/// Adds one collective to `picks` (the entry of its kind, shape and choice, or a new one).
void record_pick(std::vector<NcclPick>& picks, const collectives::TunerInput& in, const NcclChoice& c,
                 double bytes);
/// "all-reduce over 8 ranks on 1 node, 16 MiB: nvls, Simple" for each pick, largest groups first.
std::string describe_picks(std::vector<NcclPick> picks);

/// The tuner's view of `ranks_per_node` ranks on each of `nodes` nodes: NCCL opens a ring per NIC those
/// ranks use (at most one a rank) with `channels_per_nic` channels each, over the node's NVLink (or PCIe)
/// inside a node and those NICs across nodes; NVLS where the GPU's switch reduces and `nvls_enable`.
collectives::TunerInput tuner_input(const scenario::Hardware& hw, const topology::NodeLayout& node,
                                    offload::Transport transport, collectives::CollectiveKind kind, int nodes,
                                    int ranks_per_node, bool nvls_enable = true);
/// The same for a group of global GPU ids (`node.gpus` a node): the nodes it spans and its most ranks on
/// one of them.
collectives::TunerInput tuner_input(const scenario::Hardware& hw, const topology::NodeLayout& node,
                                    offload::Transport transport, collectives::CollectiveKind kind,
                                    const std::vector<int>& gpus);

/// What NCCL runs for `bytes`: the tuner's least predicted time among what `in` allows; where a
/// restricted algorithm applies to nothing, the ring, as NCCL falls back. nullopt where nothing applies
/// (a pinned protocol the ring cannot run here).
std::optional<NcclChoice> nccl_choice(collectives::TunerInput in, double bytes);

/// The tuner's protocol as the catalog names it, and back (nullopt in, nullopt out).
catalog::NcclProtocol protocol_of(collectives::TunerProtocol p);
std::optional<collectives::TunerProtocol> tuner_protocol(std::optional<catalog::NcclProtocol> p);

} // namespace dpusim::plan
