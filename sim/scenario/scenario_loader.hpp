// Reads and validates a scenario file against the schema in docs/scenario-schema.md.
#pragma once

#include "models/catalog/catalog.hpp"
#include "models/core/yaml_reader.hpp"
#include "sim/scenario/scenario.hpp"

#include <string>

namespace dpusim::scenario {

/// Throws InputError (file:line:column, key, what was found, what is valid) on any problem.
Scenario load_scenario(const std::string& path, const catalog::Catalog& catalog);
Scenario parse_scenario(const yaml::Node& root, const catalog::Catalog& catalog);

/// A variant named in the scenario, or any placement written as "preset+function=site..." checked against
/// the scenario's devices and services; throws std::invalid_argument saying what is wrong.
offload::Variant variant_for(const Scenario& s, const catalog::Catalog& catalog, const std::string& spec);

/// The per-rank memory of the most loaded pipeline stage, for reports and the fit check.
workload::MemoryBreakdown peak_rank_memory(const WorkloadConfig& w, int* stage = nullptr);

} // namespace dpusim::scenario
