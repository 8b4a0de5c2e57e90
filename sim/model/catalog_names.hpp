// Messages about names a scenario takes from the catalog, shared by the YAML reader (which resolves
// them while reading) and the models' checks (which see scenarios built in memory).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dpusim::model {

/// "no node named "x" in the catalog (did you mean "y"?); valid: a, b".
std::string unknown_name(const std::string& name, const std::vector<std::string>& valid,
                         std::string_view what);
/// Whether `name` is one of `valid`.
bool is_one_of(const std::string& name, const std::vector<std::string>& valid);

} // namespace dpusim::model
