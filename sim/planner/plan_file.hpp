// A plan file: a base scenario, axes over it and what to look for among the points they span
// (docs/planner.md). Read as strictly as a scenario: every problem is an InputError at its line and
// column that names the key and what is valid. What only shows once a point's scenario is built (a
// parallelism that does not divide its GPUs, a model that does not fit) is that point's reason for
// being infeasible, not an error of the plan.
#pragma once

#include "models/base/yaml_reader.hpp"
#include "models/catalog/catalog.hpp"
#include "sim/planner/economics.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::planner {

/// What an axis overrides in the base scenario and how its values are read.
enum class AxisKind { count, text, choice, rate, ratio, parallelism, variant };

struct AxisSpec {
  std::string_view name;
  std::string_view scenario_key; // dotted, where the value goes in the scenario (variants: the point's
                                 // offload section holds only its variant)
  AxisKind kind;
  std::string_view meaning;
  std::vector<std::string> choices{};    // choice axes: the valid values
  std::int64_t min = 1, max = 1'000'000; // count axes: the valid values
  bool range = false;                    // count axes: a range {from, to, ...} may stand for the list
};

/// Every axis a plan may have, in the order points enumerate them (the first varies slowest; variants
/// vary fastest, so that the rows of one configuration sit together).
const std::vector<AxisSpec>& axis_specs();

/// One value of an axis: the YAML node to put at the axis's key and its text for points.csv.
struct AxisValue {
  YAML::Node node; // a scalar, or a mapping (parallelism, a named variant)
  std::string text;
  std::int64_t count = 0;     // count axes
  int tp = 1, pp = 1, cp = 1; // parallelism axis
  std::optional<int> dp;      // parallelism axis; absent: the GPUs left over
  int ep = 1;
  std::optional<int> virtual_stages;
  std::optional<int> first_stage_layers, last_stage_layers; // uneven pipeline stages
};

struct Axis {
  const AxisSpec* spec = nullptr;
  std::vector<AxisValue> values;
};

enum class Objective { time_to_train, nodes, host_cores, cost, energy };
std::string_view objective_name(Objective o);
/// The objectives by name, in the order above.
const std::vector<std::string>& objective_names();
/// The objective `name` (one of objective_names()).
Objective objective_named(const std::string& name);

struct Constraints {
  std::optional<double> deadline_days;
  std::optional<int> max_nodes;
  std::optional<int> min_nodes;
  std::optional<double> budget_usd;   // cost per run at most (needs costs)
  std::optional<double> power_cap_kw; // facility power at most (needs power)
};

struct Plan {
  std::string file;
  std::string name;
  std::string description;
  YAML::Node scenario;       // the base scenario's root (from its file, or inline in the plan)
  std::string scenario_file; // where it is: its file, or the plan's
  std::uint64_t base_seed = 1;
  double train_tokens = 0;
  /// Simulate only the `refine` fastest estimates of each configuration (the rest are estimated);
  /// absent: simulate every point. `dpusim plan --refine K` overrides it.
  std::optional<int> refine;
  std::vector<Axis> axes; // in axis_specs() order, those the plan has; variants always (default: the base's)
  std::vector<Objective> objectives;
  Constraints constraints;
  std::optional<GoodputSpec> goodput;
  std::optional<PowerSpec> power;
  std::optional<CostSpec> costs;
};

/// Reads and checks a plan; throws InputError. The base scenario must itself be valid.
Plan load_plan(const std::string& path, const catalog::Catalog& catalog);
Plan parse_plan(const yaml::Node& root, const catalog::Catalog& catalog);

/// The most points a plan may span (the product of its axes' lengths).
inline constexpr std::size_t kMaxPoints = 100'000;

/// Parses a duration in days: "90d", "12h", "2w" (whole or decimal numbers); nullopt when malformed.
std::optional<double> parse_days(std::string_view text);
/// Parses a token count: a number with an optional suffix K, M, B (or G) or T: "300B", "1.5e12".
std::optional<double> parse_tokens(std::string_view text);
/// Parses a failure rate per component: "12000FIT" (per 1e9 hours), "1e-5/h", "2.4e-4/d", "0.09/y"; in
/// interruptions per second; nullopt when malformed or without a unit.
std::optional<double> parse_failure_rate(std::string_view text);
/// Parses an energy price: "0.12USD/kWh" (or /MWh); in US dollars per kWh.
std::optional<double> parse_energy_price(std::string_view text);
/// Parses a service life: "5y", "48months" (30 days each), "1500d"; in seconds.
std::optional<double> parse_life(std::string_view text);

} // namespace dpusim::planner
