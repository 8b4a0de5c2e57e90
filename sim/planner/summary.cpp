// What a plan's table says once it is complete: the points none beats (pareto.csv) and the summary
// printed after a run or a merge (the best point per objective, what offload changes, the DPU's
// break-even premium). Both read the rows of points.csv by column name (table.hpp declares them).
#include "sim/planner/economics.hpp"
#include "sim/planner/points.hpp"
#include "sim/planner/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <map>

namespace dpusim::planner {

namespace {

/// A table's rows, read by column name.
class Rows {
public:
  explicit Rows(const std::vector<std::vector<std::string>>& rows) : rows_(rows) {
    const auto& cols = table_columns();
    for (std::size_t i = 0; i < cols.size(); ++i)
      index_[cols[i]] = i;
  }
  [[nodiscard]] const std::string& text(std::size_t row, const std::string& column) const {
    return rows_[row].at(index_.at(column));
  }
  [[nodiscard]] double value(std::size_t row, const std::string& column) const {
    return std::strtod(text(row, column).c_str(), nullptr);
  }
  [[nodiscard]] bool has(std::size_t row, const std::string& column) const {
    return !text(row, column).empty();
  }
  /// Days to train: with failures where the plan has goodput, else steady-state steps.
  [[nodiscard]] double days(std::size_t row) const {
    return has(row, "time_to_train_with_failures_days") ? value(row, "time_to_train_with_failures_days")
                                                        : value(row, "time_to_train_days");
  }
  [[nodiscard]] std::size_t size() const { return rows_.size(); }
  [[nodiscard]] bool within(std::size_t row) const { return text(row, "within_constraints") == "true"; }
  [[nodiscard]] bool feasible(std::size_t row) const { return text(row, "feasible") == "true"; }
  /// Every input but the variant: the rows that differ only in their variant share it.
  [[nodiscard]] std::string configuration(std::size_t row) const {
    std::string key;
    for (const auto& c : input_columns())
      if (c != "variant")
        key += text(row, c) + ",";
    return key;
  }
  [[nodiscard]] std::string describe(std::size_t row) const {
    std::string parallel = fmt::format("tp {} pp {}", text(row, "tp"), text(row, "pp"));
    for (const char* c : {"cp", "ep"})
      if (text(row, c) != "1")
        parallel += fmt::format(" {} {}", c, text(row, c));
    parallel += fmt::format(" dp {}", text(row, "dp"));
    if (const auto v = text(row, "virtual_stages"); !v.empty() && v != "1")
      parallel += fmt::format(" ({} model chunks per GPU)", v);
    std::string fabric = text(row, "topology");
    if (!text(row, "link").empty())
      fabric += " " + text(row, "link");
    if (!text(row, "oversubscription").empty() && text(row, "oversubscription") != "1:1")
      fabric += " " + text(row, "oversubscription");
    if (!text(row, "routing").empty() && text(row, "routing") != "ecmp")
      fabric += " " + text(row, "routing") + " routing";
    const auto& precision = text(row, "precision");
    return fmt::format("point {}: {} x {} ({} GPUs), {}, {}, {}{}, micro-batch {}, seed {}",
                       text(row, "point"), text(row, "nodes"), text(row, "node"), text(row, "gpus"),
                       text(row, "variant"), parallel, fabric,
                       precision.empty() || precision == "bf16" ? "" : ", " + precision,
                       text(row, "micro_batch"), text(row, "seed"));
  }
  [[nodiscard]] std::string figures(std::size_t row) const {
    std::string out = fmt::format(
        "{:.2f} days to train (step {:.4g} s, {:.4g} tokens/s, MFU {:.1f}%, {:.1f} host cores busy "
        "per node)",
        days(row), value(row, "step_time_s"), value(row, "tokens_per_s"), 100 * value(row, "mfu"),
        value(row, "host_cores_busy"));
    if (text(row, "tier") == "estimated")
      out += ", estimated (not simulated)";
    if (has(row, "goodput"))
      out +=
          fmt::format("\n  goodput {:.1f}%: {:.0f} interruptions expected (one every {:.2f} h), a {:.3g} s "
                      "checkpoint every {:.0f} s; {:.2f} days without failures",
                      100 * value(row, "goodput"), value(row, "interruptions"), value(row, "mtbi_h"),
                      value(row, "checkpoint_write_s"), value(row, "checkpoint_interval_s"),
                      value(row, "time_to_train_days"));
    if (text(row, "memory_fit") == "uncertain")
      out +=
          fmt::format("\n  GPU memory uncertain: {:.1f} GiB with Megatron's interleaved warm-up, more than "
                      "the GPU holds; it fits only if the framework keeps no more micro-batches in flight "
                      "than 1F1B (docs/models/workload.md)",
                      value(row, "gpu_memory_gib"));
    if (has(row, "power_kw"))
      out += fmt::format("\n  {:.1f} kW at the facility, {:.1f} MWh per run", value(row, "power_kw"),
                         value(row, "energy_mwh"));
    if (has(row, "energy_cost_usd"))
      out += fmt::format(" ({:.0f} USD of energy)", value(row, "energy_cost_usd"));
    if (has(row, "cost_usd"))
      out += fmt::format("\n  {:.0f} USD per run", value(row, "cost_usd"));
    if (has(row, "capex_usd"))
      out += fmt::format(" (capex {:.0f} USD amortised)", value(row, "capex_usd"));
    return out;
  }

private:
  const std::vector<std::vector<std::string>>& rows_;
  std::map<std::string, std::size_t> index_;
};

/// "1 point", "2 points".
std::string count(std::size_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

/// "300B", "15T", "2.5e+16": the suffixes a plan accepts, where one fits.
std::string token_text(double tokens) {
  for (const auto& [suffix, scale] : {std::pair{"T", 1e12}, std::pair{"B", 1e9}, std::pair{"M", 1e6}})
    if (tokens >= scale && tokens < 1000 * scale)
      return fmt::format("{:g}{}", tokens / scale, suffix);
  return fmt::format("{:g}", tokens);
}

std::string constraints_text(const Constraints& c) {
  std::vector<std::string> parts;
  if (c.deadline_days)
    parts.push_back(fmt::format("within {:g} days", *c.deadline_days));
  if (c.min_nodes)
    parts.push_back(fmt::format("at least {} nodes", *c.min_nodes));
  if (c.max_nodes)
    parts.push_back(fmt::format("at most {} nodes", *c.max_nodes));
  if (c.budget_usd)
    parts.push_back(fmt::format("at most {:.0f} USD per run", *c.budget_usd));
  if (c.power_cap_kw)
    parts.push_back(fmt::format("at most {:g} kW", *c.power_cap_kw));
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? "none" : out;
}

/// The median of `v` (sorted here).
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// For each DPU variant against each NIC variant at the same inputs: the premium of a DPU over a NIC at
/// which the DPU run costs what the NIC run does (docs/planner.md).
std::string break_even(const Rows& rows, const SummarySpec& spec) {
  if (!spec.life_s && !spec.cloud)
    return {};
  std::map<std::pair<std::string, std::string>, std::vector<double>> premiums; // (dpu, nic) variants
  std::map<std::string, std::vector<std::size_t>> by_configuration;
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (rows.feasible(r) && rows.has(r, "cost_usd") && std::isfinite(rows.days(r)))
      by_configuration[rows.configuration(r)].push_back(r);
  for (const auto& [key, members] : by_configuration)
    for (const auto d : members) {
      if (rows.text(d, "device_kind") != "dpu")
        continue;
      for (const auto n : members) {
        if (rows.text(n, "device_kind") != "nic")
          continue;
        const double t_dpu = rows.days(d) * 86400.0;
        const double devices = rows.value(d, "devices");
        const double p = spec.cloud ? break_even_per_device_hour(rows.value(n, "cost_usd"),
                                                                 rows.value(d, "cost_usd"), t_dpu, devices)
                                    : break_even_premium(rows.value(n, "cost_usd"), rows.value(d, "cost_usd"),
                                                         spec.device_premium, t_dpu, devices, *spec.life_s);
        premiums[{rows.text(d, "variant"), rows.text(n, "variant")}].push_back(p);
      }
    }
  if (premiums.empty())
    return {};
  std::string out =
      fmt::format("\nbreak-even: the most a DPU may cost over a NIC{} for its run to cost no more:\n",
                  spec.cloud ? " per device-hour" : "");
  for (const auto& [pair, v] : premiums) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    out += fmt::format("  {} against {}: {:.0f} USD{} (median; {:.0f} to {:.0f} over {})\n", pair.first,
                       pair.second, median(v), spec.cloud ? " per DPU-hour" : " per DPU", *lo, *hi,
                       count(v.size(), "configuration"));
  }
  return out;
}

} // namespace

std::string render_pareto_csv(const std::vector<std::vector<std::string>>& table) {
  const Rows rows(table);
  std::vector<std::size_t> within;
  bool cost = false;
  bool energy = false;
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (rows.within(r)) {
      within.push_back(r);
      cost = cost || rows.has(r, "cost_usd");
      energy = energy || rows.has(r, "energy_mwh");
    }
  auto key = [&](std::size_t r) {
    std::vector<double> k{rows.days(r)};
    if (cost)
      k.push_back(rows.has(r, "cost_usd") ? rows.value(r, "cost_usd")
                                          : std::numeric_limits<double>::infinity());
    if (energy)
      k.push_back(rows.has(r, "energy_mwh") ? rows.value(r, "energy_mwh")
                                            : std::numeric_limits<double>::infinity());
    return k;
  };
  std::string out = csv_line(table_columns());
  for (const auto a : within) {
    const auto ka = key(a);
    const bool dominated = std::any_of(within.begin(), within.end(), [&](std::size_t b) {
      const auto kb = key(b);
      bool strictly = false;
      for (std::size_t i = 0; i < ka.size(); ++i) {
        if (kb[i] > ka[i])
          return false;
        strictly = strictly || kb[i] < ka[i];
      }
      return strictly;
    });
    if (!dominated)
      out += csv_line(table[a]);
  }
  return out;
}

std::string render_summary(const std::vector<std::vector<std::string>>& table, const SummarySpec& spec) {
  const Rows rows(table);
  std::size_t feasible = 0;
  std::vector<std::size_t> within;
  std::map<std::string, std::size_t> reasons;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows.feasible(r))
      ++feasible;
    else
      ++reasons[rows.text(r, "reason")];
    if (rows.within(r))
      within.push_back(r);
  }
  std::string out =
      fmt::format("plan {}: {}, {} feasible, {} within the constraints ({}); {} tokens to train\n", spec.name,
                  count(rows.size(), "point"), feasible, within.size(), constraints_text(spec.constraints),
                  token_text(spec.train_tokens));
  for (const auto& line : spec.stated)
    out += "  stated: " + line + "\n";
  std::size_t estimated = 0;
  for (std::size_t r = 0; r < rows.size(); ++r)
    estimated += rows.text(r, "tier") == "estimated" ? 1 : 0;
  if (estimated > 0)
    out += fmt::format("  {} of the {} feasible points estimated, not simulated (--refine: only the fastest "
                       "estimates of each configuration were simulated; tier column)\n",
                       estimated, feasible);
  // Ties go to the faster point, then to the earlier one: the same rows give the same answer.
  auto best = [&](auto key) {
    return *std::min_element(within.begin(), within.end(), [&](std::size_t a, std::size_t b) {
      return std::make_tuple(key(a), rows.days(a), a) < std::make_tuple(key(b), rows.days(b), b);
    });
  };
  if (within.empty()) {
    out += "no point is within the constraints\n";
  } else {
    for (const auto o : spec.objectives) {
      std::size_t r = 0;
      switch (o) {
      case Objective::time_to_train:
        r = best([](std::size_t) { return 0.0; });
        out += "fastest to train: ";
        break;
      case Objective::nodes:
        r = best([&](std::size_t x) { return rows.value(x, "nodes"); });
        out += "fewest nodes: ";
        break;
      case Objective::host_cores:
        r = best([&](std::size_t x) { return rows.value(x, "host_cores_busy"); });
        out += "fewest host cores busy: ";
        break;
      case Objective::cost:
        r = best([&](std::size_t x) { return rows.value(x, "cost_usd"); });
        out += "cheapest run: ";
        break;
      case Objective::energy:
        r = best([&](std::size_t x) { return rows.value(x, "energy_mwh"); });
        out += "least energy: ";
        break;
      }
      out += fmt::format("{}\n  {}\n", rows.describe(r), rows.figures(r));
    }
  }

  // What the variants change: each variant's best point, and against the first variant at the same inputs.
  std::vector<std::string> variants;
  for (std::size_t r = 0; r < rows.size(); ++r)
    if (std::find(variants.begin(), variants.end(), rows.text(r, "variant")) == variants.end())
      variants.push_back(rows.text(r, "variant"));
  if (variants.size() > 1) {
    out += "\nby variant, within the constraints:\n";
    for (const auto& v : variants) {
      std::vector<std::size_t> mine;
      for (const auto r : within)
        if (rows.text(r, "variant") == v)
          mine.push_back(r);
      if (mine.empty()) {
        out += fmt::format("  {}: no point within the constraints\n", v);
        continue;
      }
      const auto fewest = *std::min_element(mine.begin(), mine.end(), [&](std::size_t a, std::size_t b) {
        return std::make_tuple(rows.value(a, "nodes"), rows.days(a), a) <
               std::make_tuple(rows.value(b, "nodes"), rows.days(b), b);
      });
      const auto fastest = *std::min_element(mine.begin(), mine.end(), [&](std::size_t a, std::size_t b) {
        return std::make_tuple(rows.days(a), a) < std::make_tuple(rows.days(b), b);
      });
      out += fmt::format("  {}: {}; fewest nodes {} ({:.2f} days); fastest {:.2f} days on {} nodes\n", v,
                         count(mine.size(), "point"), rows.text(fewest, "nodes"), rows.days(fewest),
                         rows.days(fastest), rows.text(fastest, "nodes"));
    }
    const auto& base = variants.front();
    std::map<std::string, std::size_t> base_at; // configuration -> the base variant's feasible row
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (rows.feasible(r) && rows.text(r, "variant") == base)
        base_at.emplace(rows.configuration(r), r);
    out += fmt::format("what offload changes, against {} at the same inputs:\n", base);
    for (std::size_t i = 1; i < variants.size(); ++i) {
      std::vector<double> ratios;
      double fewer_cores = 0; // host cores per node the variant leaves free, summed over configurations
      for (std::size_t r = 0; r < rows.size(); ++r) {
        if (!rows.feasible(r) || rows.text(r, "variant") != variants[i])
          continue;
        const auto it = base_at.find(rows.configuration(r));
        if (it == base_at.end())
          continue;
        ratios.push_back(rows.days(r) / rows.days(it->second));
        fewer_cores += rows.value(it->second, "host_cores_busy") - rows.value(r, "host_cores_busy");
      }
      if (ratios.empty()) {
        out += fmt::format("  {}: no configuration where both are feasible\n", variants[i]);
        continue;
      }
      std::sort(ratios.begin(), ratios.end());
      const double median = ratios.size() % 2 == 1
                                ? ratios[ratios.size() / 2]
                                : (ratios[ratios.size() / 2 - 1] + ratios[ratios.size() / 2]) / 2;
      const double mean_fewer = fewer_cores / static_cast<double>(ratios.size());
      out += fmt::format("  {}: {:.3f}x the time to train (median; {:.3f}x to {:.3f}x over {}), "
                         "{:.1f} {} host cores busy per node on average\n",
                         variants[i], median, ratios.front(), ratios.back(),
                         count(ratios.size(), "configuration"), std::abs(mean_fewer),
                         mean_fewer >= 0 ? "fewer" : "more");
    }
  }
  out += break_even(rows, spec);
  if (!reasons.empty()) {
    out += fmt::format("\ninfeasible: {}\n", count(rows.size() - feasible, "point"));
    // The commonest reasons first (then in the order of their text).
    std::vector<std::pair<std::size_t, std::string>> by_count;
    for (const auto& [reason, n] : reasons)
      by_count.emplace_back(n, reason);
    std::stable_sort(by_count.begin(), by_count.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    constexpr std::size_t kShown = 6;
    for (std::size_t i = 0; i < by_count.size() && i < kShown; ++i)
      out += fmt::format("  {} x {}\n", by_count[i].first, by_count[i].second);
    if (by_count.size() > kShown)
      out += fmt::format("  and {} more distinct reasons (points.csv gives each point's)\n",
                         by_count.size() - kShown);
  }
  return out;
}

} // namespace dpusim::planner
