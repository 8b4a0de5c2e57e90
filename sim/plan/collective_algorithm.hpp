// The collective algorithms a scenario names (workload.communication.algorithm, NCCL_ALGO).
#pragma once

#include <optional>
#include <string_view>

namespace dpusim::plan {

/// `tuned`: what NCCL's tuner picks for each collective at its size, with the protocol it picks
/// (sim/plan/nccl_choice.hpp); the others run in the protocol set on the lowering (Simple by default).
enum class CollectiveAlgorithm { ring, tree, hierarchical, nvls, tuned };
std::string_view algorithm_name(CollectiveAlgorithm a);
/// "ring", "tree", "hierarchical", "nvls" or "auto" (tuned); nullopt for anything else.
std::optional<CollectiveAlgorithm> parse_algorithm(std::string_view name);

} // namespace dpusim::plan
