#include "sim/planner/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <map>
#include <stdexcept>

namespace dpusim::planner {

namespace {

const std::vector<std::string>& result_columns() {
  static const std::vector<std::string> columns = {
      "feasible",       "reason",         "step_time_s",     "tokens_per_s",       "mfu",
      "tflops_per_gpu", "exposed_comm_s", "host_cores_busy", "time_to_train_days", "within_constraints"};
  return columns;
}

std::string number(double v) {
  return fmt::format("{:.9g}", v);
}

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
    std::string fabric = text(row, "topology");
    if (!text(row, "link").empty())
      fabric += " " + text(row, "link");
    if (!text(row, "oversubscription").empty() && text(row, "oversubscription") != "1:1")
      fabric += " " + text(row, "oversubscription");
    return fmt::format("point {}: {} x {} ({} GPUs), {}, {}, {}, micro-batch {}, seed {}", text(row, "point"),
                       text(row, "nodes"), text(row, "node"), text(row, "gpus"), text(row, "variant"),
                       parallel, fabric, text(row, "micro_batch"), text(row, "seed"));
  }
  [[nodiscard]] std::string figures(std::size_t row) const {
    return fmt::format(
        "{:.2f} days to train (step {:.4g} s, {:.4g} tokens/s, MFU {:.1f}%, {:.1f} host cores busy "
        "per node)",
        value(row, "time_to_train_days"), value(row, "step_time_s"), value(row, "tokens_per_s"),
        100 * value(row, "mfu"), value(row, "host_cores_busy"));
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
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? "none" : out;
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
  return SummarySpec{plan.name, plan.train_tokens, plan.objectives, plan.constraints};
}

std::vector<std::string> point_row(const BuiltPoint& point, const report::VariantResult* result,
                                   const std::string& reason, const SummarySpec& spec) {
  std::vector<std::string> row{std::to_string(point.index)};
  row.insert(row.end(), point.inputs.begin(), point.inputs.end());
  if (result == nullptr) {
    row.insert(row.end(), {"false", reason, "", "", "", "", "", "", "", "false"});
    return row;
  }
  const auto& m = result->metrics;
  // With periodic checkpoints, the step a job sees on average (metrics::effective_step_s).
  const double step = m.effective_step_s();
  const double tokens_per_s = step > 0 ? m.tokens_per_s * m.step_time_s / step : 0;
  const double days = tokens_per_s > 0 ? spec.train_tokens / tokens_per_s / 86400.0 : 0;
  const bool within = (!spec.constraints.deadline_days || days <= *spec.constraints.deadline_days) &&
                      (!spec.constraints.max_nodes || result->nodes <= *spec.constraints.max_nodes) &&
                      (!spec.constraints.min_nodes || result->nodes >= *spec.constraints.min_nodes);
  row.insert(row.end(), {"true", "", number(step), number(tokens_per_s), number(m.mfu),
                         number(m.tflops_per_gpu), number(m.exposed_comm_s), number(m.host_cpu_busy_cores),
                         number(days), within ? "true" : "false"});
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
  // Ties go to the faster point, then to the earlier one: the same rows give the same answer.
  auto best = [&](auto key) {
    return *std::min_element(within.begin(), within.end(), [&](std::size_t a, std::size_t b) {
      return std::make_tuple(key(a), rows.value(a, "time_to_train_days"), a) <
             std::make_tuple(key(b), rows.value(b, "time_to_train_days"), b);
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
        return std::make_tuple(rows.value(a, "nodes"), rows.value(a, "time_to_train_days"), a) <
               std::make_tuple(rows.value(b, "nodes"), rows.value(b, "time_to_train_days"), b);
      });
      const auto fastest = *std::min_element(mine.begin(), mine.end(), [&](std::size_t a, std::size_t b) {
        return std::make_tuple(rows.value(a, "time_to_train_days"), a) <
               std::make_tuple(rows.value(b, "time_to_train_days"), b);
      });
      out += fmt::format("  {}: {}; fewest nodes {} ({:.2f} days); fastest {:.2f} days on {} nodes\n", v,
                         count(mine.size(), "point"), rows.text(fewest, "nodes"),
                         rows.value(fewest, "time_to_train_days"), rows.value(fastest, "time_to_train_days"),
                         rows.text(fastest, "nodes"));
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
        ratios.push_back(rows.value(r, "time_to_train_days") / rows.value(it->second, "time_to_train_days"));
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
