#include "sim/planner/plan_info.hpp"

#include "sim/report/run_info.hpp"

#include <fmt/format.h>
#include <utility>
#include <vector>

namespace dpusim::planner {

std::string render_plan_info(const SummarySpec& spec, std::size_t points) {
  using report::json_string;
  const auto& c = spec.constraints;
  std::vector<std::pair<std::string, std::string>> constraints;
  if (c.deadline_days)
    constraints.emplace_back("deadline", fmt::format("{:g} days", *c.deadline_days));
  if (c.min_nodes)
    constraints.emplace_back("min_nodes", fmt::format("{}", *c.min_nodes));
  if (c.max_nodes)
    constraints.emplace_back("max_nodes", fmt::format("{}", *c.max_nodes));
  if (c.budget_usd)
    constraints.emplace_back("budget", fmt::format("{:g} USD per run", *c.budget_usd));
  if (c.power_cap_kw)
    constraints.emplace_back("power_cap", fmt::format("{:g} kW at the facility", *c.power_cap_kw));
  std::string out =
      fmt::format("{{\n \"command\": \"plan\",\n \"plan\": {{\n  \"name\": {},\n  \"description\": {},\n"
                  "  \"points\": {},\n  \"train_tokens\": {:.17g},\n  \"objectives\": [",
                  json_string(spec.name), json_string(spec.description), points, spec.train_tokens);
  for (std::size_t i = 0; i < spec.objectives.size(); ++i)
    out += (i == 0 ? "" : ", ") + json_string(objective_name(spec.objectives[i]));
  out += "],\n  \"constraints\": [";
  for (std::size_t i = 0; i < constraints.size(); ++i)
    out += fmt::format("{}[{}, {}]", i == 0 ? "" : ", ", json_string(constraints[i].first),
                       json_string(constraints[i].second));
  out += "],\n  \"stated\": [";
  for (std::size_t i = 0; i < spec.stated.size(); ++i)
    out += fmt::format("{}\n   {}", i == 0 ? "" : ",", json_string(spec.stated[i]));
  out += spec.stated.empty() ? "]\n }\n}\n" : "\n  ]\n }\n}\n";
  return out;
}

} // namespace dpusim::planner
