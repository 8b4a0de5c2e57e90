#include "sim/input/section_readers.hpp"

#include "sim/model/catalog_names.hpp"
#include "sim/model/registry.hpp"

namespace dpusim::input {

std::vector<std::string_view> keys_of(std::string_view section) {
  return model::registry().keys_under(section);
}

std::string catalog_name(const yaml::Node& node, const std::vector<std::string>& valid,
                         std::string_view what) {
  const std::string name = node.as_string();
  if (model::is_one_of(name, valid))
    return name;
  node.fail(model::unknown_name(name, valid, what));
}

} // namespace dpusim::input
