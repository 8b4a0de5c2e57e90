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

/// The per-rank memory of the most loaded pipeline stage, for reports and the fit check.
workload::MemoryBreakdown peak_rank_memory(const WorkloadConfig& w, int* stage = nullptr);

} // namespace dpusim::scenario
