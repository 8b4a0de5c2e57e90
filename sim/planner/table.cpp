#include "sim/planner/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <stdexcept>

namespace dpusim::planner {

namespace {

const std::vector<std::string>& result_columns() {
  static const std::vector<std::string> columns = {"feasible",
                                                   "reason",
                                                   "tier",
                                                   "step_time_s",
                                                   "estimated_step_time_s",
                                                   "tokens_per_s",
                                                   "mfu",
                                                   "tflops_per_gpu",
                                                   "exposed_comm_s",
                                                   "host_cores_busy",
                                                   "host_cores_peak",
                                                   "gpu_memory_gib",
                                                   "memory_fit",
                                                   "time_to_train_days",
                                                   "device",
                                                   "device_kind",
                                                   "devices",
                                                   "switches",
                                                   "links",
                                                   "checkpoint_write_s",
                                                   "mtbi_h",
                                                   "checkpoint_interval_s",
                                                   "interruptions",
                                                   "goodput",
                                                   "time_to_train_with_failures_days",
                                                   "power_kw",
                                                   "energy_mwh",
                                                   "energy_cost_usd",
                                                   "capex_usd",
                                                   "cost_usd",
                                                   "within_constraints"};
  return columns;
}

std::string number(double v) {
  return fmt::format("{:.9g}", v);
}

std::string_view memory_fit_name(scenario::MemoryFit::Verdict v) {
  switch (v) {
  case scenario::MemoryFit::Verdict::fits:
    return "fits";
  case scenario::MemoryFit::Verdict::uncertain:
    return "uncertain";
  case scenario::MemoryFit::Verdict::too_large:
    return "too_large";
  }
  return "fits";
}

std::string number(const std::optional<double>& v) {
  return v ? number(*v) : std::string();
}

} // namespace

const std::vector<std::string>& table_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c{"point"};
    c.insert(c.end(), input_columns().begin(), input_columns().end());
    c.insert(c.end(), result_columns().begin(), result_columns().end());
    return c;
  }();
  return columns;
}

SummarySpec summary_spec(const Plan& plan) {
  SummarySpec s;
  s.name = plan.name;
  s.description = plan.description;
  s.train_tokens = plan.train_tokens;
  s.objectives = plan.objectives;
  s.constraints = plan.constraints;
  s.goodput = plan.goodput;
  s.power = plan.power;
  s.costs = plan.costs;
  auto usd = [](double v) { return fmt::format("{:g} USD", v); };
  if (plan.goodput) {
    std::string g = fmt::format("goodput: restart {:g} s after each interruption", plan.goodput->restart_s);
    for (const auto& [what, r] :
         {std::pair{"GPU", plan.goodput->gpu_rate}, std::pair{"device", plan.goodput->device_rate},
          std::pair{"node", plan.goodput->node_rate}})
      if (r)
        g += fmt::format("; {} interruptions {:.6g} per 1e9 h (plan)", what, *r * 3600.0 * 1e9);
    s.stated.push_back(g + "; other interruption rates from the catalog");
  }
  if (plan.power)
    s.stated.push_back(fmt::format(
        "power: PUE {:g}{}; GPUs at TDP while their kernels run and at their catalog idle power while they "
        "wait (TDP throughout without one), host CPUs at their busy cores' share of TDP, the rest of each "
        "node (memory, fans, NVSwitches, storage, board, the CPUs' idle floor) at its catalog platform_power "
        "(left out for a node without one), NICs/DPUs at their catalog power, every link optical (the "
        "catalog's transceivers at both ends); {}",
        plan.power->pue,
        plan.power->usd_per_kwh ? fmt::format(", energy {:g} USD/kWh", *plan.power->usd_per_kwh)
                                : std::string(),
        plan.power->switch_watts ? fmt::format("switches at {:g} W each (plan)", *plan.power->switch_watts)
                                 : std::string("switches left out (no power in the catalog)")));
  if (plan.costs) {
    const auto& c = *plan.costs;
    if (c.gpu_hour) {
      s.cloud = true;
      s.stated.push_back(
          fmt::format("costs: cloud price {} per GPU-hour (energy included in it)", usd(*c.gpu_hour)));
    } else {
      s.life_s = c.life_s;
      s.device_premium = c.dpu.value_or(0) - c.nic.value_or(0);
      std::string t = "costs: capex";
      for (const auto& [what, v] :
           {std::pair{"node", c.node}, std::pair{"NIC", c.nic}, std::pair{"DPU", c.dpu},
            std::pair{"switch", c.network_switch}, std::pair{"link", c.link}})
        if (std::string_view(what) == "node" && !c.node_by_type.empty())
          for (const auto& [type, price_usd] : c.node_by_type)
            t += fmt::format(" node {} {};", type, usd(price_usd));
        else
          t += fmt::format(" {} {};", what, v ? usd(*v) : std::string("not given (0)"));
      t += fmt::format(" amortised over {:g} days of life, plus energy", c.life_s.value_or(0) / 86400.0);
      s.stated.push_back(t);
    }
    if (c.host_core_hour)
      s.stated.push_back(
          fmt::format("costs: each busy host core charged {} per hour, what it would earn sold "
                      "to other tenants (so freed cores lower the cost)",
                      usd(*c.host_core_hour)));
    if (c.host_core)
      s.stated.push_back(fmt::format(
          "costs: each node bought with only the host cores its point keeps busy (rounded up; fewer or "
          "smaller CPUs), each core beyond them {} off the node's price",
          usd(*c.host_core)));
  }
  return s;
}

namespace {
/// Where points.csv's inputs give the point's node type.
std::size_t node_column() {
  const auto& c = input_columns();
  return static_cast<std::size_t>(std::find(c.begin(), c.end(), "node") - c.begin());
}
} // namespace

std::vector<std::string> point_row(const BuiltPoint& point, const report::VariantResult* result,
                                   const std::string& reason, const SummarySpec& spec, std::string_view tier,
                                   std::optional<double> estimated_step_s) {
  std::vector<std::string> row{std::to_string(point.index)};
  row.insert(row.end(), point.inputs.begin(), point.inputs.end());
  if (result == nullptr) {
    std::vector<std::string> cells(result_columns().size());
    cells.front() = "false";
    cells[1] = reason;
    cells.back() = "false";
    row.insert(row.end(), cells.begin(), cells.end());
    return row;
  }
  const auto& m = result->metrics;
  // With periodic checkpoints, the step a job sees on average (metrics::effective_step_s).
  const double step = m.effective_step_s();
  const double tokens_per_s = step > 0 ? m.tokens_per_s * m.step_time_s / step : 0;
  const double days = tokens_per_s > 0 ? spec.train_tokens / tokens_per_s / 86400.0 : 0;
  // The point's node type prices its nodes where the plan gives a price per type.
  const auto costs = spec.costs
                         ? std::optional<CostSpec>(spec.costs->for_node(point.inputs.at(node_column())))
                         : std::nullopt;
  const auto e = point_economics(*result, spec.train_tokens, days, spec.goodput, spec.power, costs);
  const double effective_days = e.wall_days.value_or(days);
  const auto& c = spec.constraints;
  const bool within =
      std::isfinite(effective_days) && (!c.deadline_days || effective_days <= *c.deadline_days) &&
      (!c.max_nodes || result->nodes <= *c.max_nodes) && (!c.min_nodes || result->nodes >= *c.min_nodes) &&
      (!c.budget_usd || (e.cost_usd && *e.cost_usd <= *c.budget_usd)) &&
      (!c.power_cap_kw || (e.power_kw && *e.power_kw <= *c.power_cap_kw));
  row.insert(
      row.end(),
      {"true", "", std::string(tier), number(step), number(estimated_step_s), number(tokens_per_s),
       number(m.mfu), number(m.tflops_per_gpu), number(m.exposed_comm_s), number(m.host_cpu_busy_cores),
       // The estimator does not give a peak: an estimated row leaves it empty.
       tier == "simulated" ? number(m.host_cpu_peak_cores) : std::string(),
       point.memory ? number(point.memory->need.total() / (1024.0 * 1024.0 * 1024.0)) : std::string(),
       point.memory ? std::string(memory_fit_name(point.memory->verdict)) : std::string(), number(days),
       e.device, e.device_kind, std::to_string(e.devices), number(e.switches), number(e.links),
       number(e.checkpoint_write_s), number(e.mtbi_h), number(e.interval_s), number(e.interruptions),
       number(e.fraction), number(e.wall_days), number(e.power_kw), number(e.energy_mwh),
       number(e.energy_cost_usd), number(e.capex_usd), number(e.cost_usd), within ? "true" : "false"});
  return row;
}

std::string csv_line(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0)
      out += ',';
    const auto& c = cells[i];
    if (c.find_first_of(",\"\n\r") == std::string::npos) {
      out += c;
      continue;
    }
    out += '"';
    for (const char ch : c) {
      if (ch == '"')
        out += '"';
      out += ch;
    }
    out += '"';
  }
  out += '\n';
  return out;
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false;
  bool any = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    any = true;
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        cell += ch;
      }
    } else if (ch == '"') {
      if (!cell.empty())
        throw std::runtime_error("a quote inside an unquoted CSV cell");
      quoted = true;
    } else if (ch == ',') {
      row.push_back(std::move(cell));
      cell.clear();
    } else if (ch == '\n') {
      row.push_back(std::move(cell));
      cell.clear();
      rows.push_back(std::move(row));
      row.clear();
      any = false;
    } else {
      cell += ch;
    }
  }
  if (quoted)
    throw std::runtime_error("a CSV cell's quote is never closed");
  if (any) {
    row.push_back(std::move(cell));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string render_points_csv(const std::vector<std::vector<std::string>>& rows) {
  std::string out = csv_line(table_columns());
  for (const auto& r : rows)
    out += csv_line(r);
  return out;
}

} // namespace dpusim::planner
