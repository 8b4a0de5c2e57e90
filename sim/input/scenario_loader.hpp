// Reads a scenario file: every value typed and in range, every key one a model declares (with "did you
// mean" for the others), then the models' checks (model::check_scenario) with each problem placed at
// its key's line and column. The keys and their meaning: `dpusim schema` (docs/scenario-schema.md).
#pragma once

#include "models/base/yaml_reader.hpp"
#include "models/catalog/catalog.hpp"
#include "sim/scenario/scenario.hpp"

#include <string>

namespace dpusim::input {

/// Throws InputError (file:line:column, key, what was found, what is valid) on any problem.
scenario::Scenario load_scenario(const std::string& path, const catalog::Catalog& catalog);
scenario::Scenario parse_scenario(const yaml::Node& root, const catalog::Catalog& catalog);

/// A variant named in the scenario, or any placement written as "preset+function=site..." checked against
/// the scenario's devices and services; throws std::invalid_argument saying what is wrong.
offload::Variant variant_for(const scenario::Scenario& s, const catalog::Catalog& catalog,
                             const std::string& spec);

} // namespace dpusim::input
