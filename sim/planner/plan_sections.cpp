// The economic sections of a plan file (docs/planner.md): goodput, power and costs, each read as strictly
// as the rest of the plan (an InputError at its line and key), into the plan's specs.
#include "sim/planner/plan_sections.hpp"

#include "models/base/text_distance.hpp"

#include <fmt/format.h>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dpusim::planner {
namespace {

/// A price in US dollars ("25000USD", "25kUSD"), greater than zero unless `zero` allows it.
double price(const yaml::Node& n, bool zero = true) {
  return n.as_quantity<units::Money>(zero).si();
}

/// The node's text as `parse` reads it (a number with its unit), or an error at the node saying what was
/// `expected` and what was found.
double parsed(const yaml::Node& n, std::optional<double> (*parse)(std::string_view),
              std::string_view expected) {
  const auto text = n.as_string();
  const auto v = parse(text);
  if (!v)
    n.fail(fmt::format("expected {}, found \"{}\"", expected, text));
  return *v;
}

/// goodput: the restart time and the failure rates (needs the base scenario's checkpoints).
void read_goodput(const yaml::Node& node, Plan& p, bool base_checkpoints) {
  auto gm = node.as_map();
  gm.declare({"restart", "rates"});
  GoodputSpec spec;
  spec.restart_s =
      gm.required("restart", "the time from an interruption to training again, as you measure it (20min)")
          .as_quantity<units::Seconds>(true)
          .si();
  if (auto rates = gm.optional("rates")) {
    auto rm = rates->as_map();
    rm.declare({"gpu", "device", "node"});
    auto rate = [&](std::string_view key, std::optional<double>& into) {
      if (auto r = rm.optional(key)) {
        into = parsed(*r, parse_failure_rate,
                      "a failure rate per component with its unit: FIT (per 1e9 hours), /h, /d or /y "
                      "(12000FIT, 2.9e-4/d)");
      }
    };
    rate("gpu", spec.gpu_rate);
    rate("device", spec.device_rate);
    rate("node", spec.node_rate);
    rm.finish();
  }
  gm.finish();
  if (!base_checkpoints)
    node.fail(
        "goodput needs each point's checkpoint write time, which the checkpoint model simulates: give the "
        "base scenario workload.checkpoint (and cluster.storage)");
  p.goodput = spec;
}

/// power: the facility's PUE, the energy price and a switch's power.
void read_power(const yaml::Node& node, Plan& p) {
  auto wm = node.as_map();
  wm.declare({"pue", "energy_price", "switch"});
  PowerSpec spec;
  spec.pue = wm.required("pue", "the facility's power usage effectiveness (1.2)").as_number(1, 10);
  if (auto e = wm.optional("energy_price")) {
    spec.usd_per_kwh = parsed(*e, parse_energy_price, "an energy price in USD/kWh or USD/MWh (0.12USD/kWh)");
  }
  if (auto sw = wm.optional("switch"))
    spec.switch_watts = sw->as_quantity<units::Power>(true).si();
  wm.finish();
  p.power = spec;
}

/// costs: capex prices with a service life, or a cloud price per GPU-hour.
void read_costs(const yaml::Node& node, Plan& p, const catalog::Catalog& cat) {
  auto cm = node.as_map();
  cm.declare({"node", "nic", "dpu", "switch", "link", "life", "gpu_hour", "host_core_hour", "host_core"});
  CostSpec spec;
  std::optional<yaml::Node> capex_key;
  if (auto n = cm.optional("node"); n && n->is_map()) {
    // A price per node type: every type the plan's points run on needs one.
    capex_key.emplace(*n);
    auto nm = n->as_map();
    std::vector<std::string> types;
    for (const auto& a : p.axes)
      if (a.spec->name == "node")
        for (const auto& v : a.values)
          types.push_back(v.text);
    if (types.empty())
      types.push_back(p.scenario["cluster"]["node"].Scalar());
    for (auto& [key, v] : nm.items()) {
      if (cat.node(key) == nullptr) {
        const std::string hint = did_you_mean(key, cat.node_names());
        v.fail(fmt::format("costs.node prices \"{}\", which is no catalog node{}; valid: {}", key,
                           hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint),
                           join(cat.node_names())));
      }
      spec.node_by_type[key] = price(v);
    }
    std::vector<std::string> priced;
    for (const auto& [type, price_usd] : spec.node_by_type)
      priced.push_back(type);
    for (const auto& t : types)
      if (spec.node_by_type.count(t) == 0)
        n->fail(fmt::format("prices per node type need one for {}, a node of this "
                            "plan's points; priced: {}",
                            t, join(priced)));
  }
  for (const auto& [key, into] :
       {std::pair{"node", &spec.node}, std::pair{"nic", &spec.nic}, std::pair{"dpu", &spec.dpu},
        std::pair{"switch", &spec.network_switch}, std::pair{"link", &spec.link}})
    if (auto n = cm.optional(key); n && !(key == std::string_view("node") && n->is_map())) {
      *into = price(*n);
      if (!capex_key)
        capex_key.emplace(*n);
    }
  std::optional<yaml::Node> life_node;
  if (auto l = cm.optional("life")) {
    life_node.emplace(*l);
    spec.life_s = parsed(*l, parse_life, "a service life in years, months or days (5y, 48months)");
  }
  std::optional<yaml::Node> hour_node;
  if (auto h = cm.optional("gpu_hour")) {
    hour_node.emplace(*h);
    spec.gpu_hour = price(*h, false);
  }
  if (auto h = cm.optional("host_core_hour"))
    spec.host_core_hour = price(*h);
  std::optional<yaml::Node> core_node;
  if (auto h = cm.optional("host_core")) {
    core_node.emplace(*h);
    spec.host_core = price(*h);
  }
  cm.finish();
  if (core_node && hour_node)
    core_node->fail("host_core is taken off the node's capex price; a cloud price per GPU-hour has none");
  if (core_node && !spec.node && spec.node_by_type.empty())
    core_node->fail("host_core is taken off the node's price: give node (the price of a GPU node) too");
  if (hour_node && capex_key)
    hour_node->fail("give either a cloud price per GPU-hour or capex prices (node, nic, dpu, switch, link), "
                    "not both");
  if (!hour_node && !capex_key)
    node.fail("costs needs prices: node, nic, dpu, switch, link (with life), or gpu_hour");
  if (capex_key && !life_node)
    capex_key->fail("capex prices need a service life to amortise them over: costs.life (5y)");
  if (life_node && hour_node)
    life_node->fail("a cloud price per GPU-hour is not amortised: leave out life");
  p.costs = spec;
}

} // namespace

void read_economics(yaml::Map& m, Plan& p, bool base_checkpoints, const catalog::Catalog& cat) {
  if (auto g = m.optional("goodput"))
    read_goodput(*g, p, base_checkpoints);
  if (auto w = m.optional("power"))
    read_power(*w, p);
  if (auto c = m.optional("costs"))
    read_costs(*c, p, cat);
}

} // namespace dpusim::planner
