#include "sim/model/catalog_names.hpp"

#include "models/base/text_distance.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace dpusim::model {

std::string unknown_name(const std::string& name, const std::vector<std::string>& valid,
                         std::string_view what) {
  const std::string hint = did_you_mean(name, valid);
  return fmt::format("no {} named \"{}\" in the catalog{}; valid: {}", what, name,
                     hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint),
                     join(valid));
}

bool is_one_of(const std::string& name, const std::vector<std::string>& valid) {
  return std::find(valid.begin(), valid.end(), name) != valid.end();
}

} // namespace dpusim::model
