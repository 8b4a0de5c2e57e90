#include "sim/input/section_readers.hpp"

#include "sim/model/catalog_names.hpp"
#include "sim/model/registry.hpp"

#include <fmt/format.h>

namespace dpusim::input {

std::vector<std::string_view> keys_of(std::string_view section) {
  return model::registry().keys_under(section);
}

std::string catalog_name(const yaml::Node& node, const std::vector<std::string>& valid, std::string_view what,
                         const catalog::Catalog& cat, std::string_view kind) {
  const std::string name = node.as_string();
  if (model::is_one_of(name, valid))
    return name;
  // An entry of the catalog that cannot be read: refused here, where it is used, with its own error.
  if (const auto* b = cat.broken_entry(kind, name))
    node.fail(fmt::format("the catalog's {} entry \"{}\" cannot be read: {}", what, name, b->error.what()));
  node.fail(model::unknown_name(name, valid, what));
}

} // namespace dpusim::input
