// The readers of a scenario's sections (cluster_reader.cpp, workload_reader.cpp) and what they share:
// the keys the models declare for a section, and catalog names resolved with a suggestion.
#pragma once

#include "models/base/yaml_reader.hpp"
#include "models/catalog/catalog.hpp"
#include "sim/scenario/scenario.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dpusim::input {

/// The keys the models declare directly under `section`.
std::vector<std::string_view> keys_of(std::string_view section);
/// The node's text, which must be one of `valid` (an error suggests the nearest).
std::string catalog_name(const yaml::Node& node, const std::vector<std::string>& valid, std::string_view what,
                         const catalog::Catalog& cat, std::string_view kind);

scenario::ClusterConfig read_cluster(yaml::Map m, const catalog::Catalog& cat);
scenario::WorkloadConfig read_workload(yaml::Map m, const catalog::Catalog& cat);

} // namespace dpusim::input
