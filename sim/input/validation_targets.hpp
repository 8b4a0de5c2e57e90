// The error targets of `dpusim validate --check` (<DIR>/targets.yaml, docs/validation.md): per published
// table, the median and maximum magnitude of the relative error, and the rows known to miss the maximum.
#pragma once

#include "models/base/yaml_reader.hpp"

#include <map>
#include <set>
#include <string>

namespace dpusim::input {

struct ValidationTarget {
  double median = 0;
  double max = 0;
  std::map<std::string, std::string> known_misses; // scenario name -> why it misses the maximum
};

/// What the targets may name: the tables and the scenario names of the validation directory. Empty sets
/// accept any name (the fuzz target reads a file without its directory).
struct ValidationNames {
  std::set<std::string> tables;
  std::set<std::string> scenarios;
};

/// Reads a targets file's root mapping; throws InputError (file, line, key and what is valid) for a
/// fraction outside 0..1, a median above the maximum, a table or a known miss naming nothing there,
/// a known miss of another table's scenario, or an unknown key.
std::map<std::string, ValidationTarget>
parse_validation_targets(const yaml::Node& root, const ValidationNames& names = {},
                         const std::map<std::string, std::string>& table_of_scenario = {});

} // namespace dpusim::input
