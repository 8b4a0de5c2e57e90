#include "sim/input/validation_targets.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace dpusim::input {
namespace {

std::string listed(const std::set<std::string>& names) {
  return fmt::format("{}", fmt::join(names, ", "));
}

} // namespace

std::map<std::string, ValidationTarget>
parse_validation_targets(const yaml::Node& root, const ValidationNames& names,
                         const std::map<std::string, std::string>& table_of_scenario) {
  std::map<std::string, ValidationTarget> out;
  if (root.is_null())
    return out;
  auto tables = root.as_map();
  for (auto& [table, node] : tables.items()) {
    if (!names.tables.empty() && !names.tables.contains(table))
      node.fail(fmt::format("no validation scenario of this directory belongs to a table named \"{}\"; the "
                            "tables are: {}",
                            table, listed(names.tables)));
    auto m = node.as_map();
    m.declare({"median", "max", "known_misses"});
    ValidationTarget t;
    t.median =
        m.required("median", "the largest median |relative error|, a fraction such as 0.05").as_number(0, 1);
    const auto max_node = m.required("max", "the largest |relative error| of a row, a fraction such as 0.12");
    t.max = max_node.as_number(0, 1);
    if (t.median > t.max)
      max_node.fail(fmt::format("the maximum ({}) is below the median ({}): a table's largest error cannot "
                                "be smaller than its median",
                                t.max, t.median));
    if (auto k = m.optional("known_misses"))
      for (auto& [scenario, why] : k->as_map().items()) {
        if (!names.scenarios.empty() && !names.scenarios.contains(scenario))
          why.fail(fmt::format("no validation scenario of this directory is named \"{}\"; the scenarios "
                               "are: {}",
                               scenario, listed(names.scenarios)));
        if (const auto it = table_of_scenario.find(scenario);
            it != table_of_scenario.end() && it->second != table)
          why.fail(fmt::format("scenario \"{}\" belongs to table \"{}\", not \"{}\"", scenario, it->second,
                               table));
        t.known_misses[scenario] = why.as_string(); // why it misses: not empty
      }
    m.finish();
    out[table] = std::move(t);
  }
  return out;
}

} // namespace dpusim::input
