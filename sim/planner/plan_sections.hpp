// Sections of a plan file read apart from the axes (sim/planner/plan_file.cpp): the economic ones.
#pragma once

#include "models/catalog/catalog.hpp"
#include "models/core/yaml_reader.hpp"
#include "sim/planner/plan_file.hpp"

namespace dpusim::planner {

/// The goodput, power and costs sections of the plan's top-level map `m`, into `p` (after its axes: a
/// price per node type needs the node axis). `base_checkpoints`: whether the base scenario writes
/// checkpoints (goodput needs their write time). Throws InputError at the offending key.
void read_economics(yaml::Map& m, Plan& p, bool base_checkpoints, const catalog::Catalog& cat);

} // namespace dpusim::planner
