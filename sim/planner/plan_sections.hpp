// Sections of a plan file that sim/planner/plan_file.cpp's parse_plan reads through: the axes
// (plan_axes.cpp) and the economic ones (plan_sections.cpp). Internal to the planner's reader.
#pragma once

#include "models/base/yaml_reader.hpp"
#include "models/catalog/catalog.hpp"
#include "sim/planner/plan_file.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dpusim::planner {

/// The largest count a plan's axis or constraint may give (nodes, GPUs, a range's step).
inline constexpr std::int64_t kMaxCount = 1'000'000;

/// The base scenario's variants given as maps, by name: what a variants axis may name.
using NamedVariants = std::map<std::string, YAML::Node, std::less<>>;

/// What `parallelism: auto` searches over: the model and the largest node and cluster of the plan.
struct SearchSpace {
  workload::TransformerShape model;
  int seq_len = 0;
  int gpus_per_node = 1;            // the most any of the plan's nodes has
  long long gpus = 1;               // the most any point has
  std::set<long long> gpu_counts{}; // every point's GPUs (for each node count, each node type)
};

/// One axis of the axes section, its values read at their lines (`auto` parallelism searched over
/// `space`).
Axis read_axis(const AxisSpec& spec, const yaml::Node& n, const catalog::Catalog& cat,
               const NamedVariants& named, const SearchSpace& space);
/// The axes' names, in the specs' order.
std::vector<std::string> axis_names();
/// The node counts a plan's points can take (the fewest, the most): its nodes axis, or the base
/// scenario's `base_nodes` (with `base_per_node` GPUs a node where the axes give GPUs).
std::pair<std::int64_t, std::int64_t> node_range(const Plan& p, std::int64_t base_nodes,
                                                 const catalog::Catalog& cat, std::int64_t base_per_node);

/// The goodput, power and costs sections of the plan's top-level map `m`, into `p` (after its axes: a
/// price per node type needs the node axis). `base_checkpoints`: whether the base scenario writes
/// checkpoints (goodput needs their write time). Throws InputError at the offending key.
void read_economics(yaml::Map& m, Plan& p, bool base_checkpoints, const catalog::Catalog& cat);

} // namespace dpusim::planner
