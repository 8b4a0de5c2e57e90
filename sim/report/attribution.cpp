#include "sim/report/attribution.hpp"

#include <cmath>
#include <fmt/format.h>

namespace dpusim::report {

std::optional<double> Attribution::alone_change_s(const Row& r) const {
  if (!r.alone_step_s)
    return std::nullopt;
  return *r.alone_step_s - baseline_step_s;
}

std::optional<double> Attribution::last_change_s(const Row& r) const {
  if (!r.last_step_s)
    return std::nullopt;
  return variant_step_s - *r.last_step_s;
}

namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string percent(double change, double total) {
  if (!(std::abs(total) > 0))
    return "-";
  const double pct = 100 * change / total;
  return fmt::format("{:.0f}%", std::abs(pct) < 0.5 ? 0.0 : pct);
}

std::string number(double v) {
  return fmt::format("{:.9g}", v == 0 ? 0.0 : v);
} // no "-0"

} // namespace

std::string render_attribution(const Attribution& a) {
  const double total = a.total_s();
  std::string out = fmt::format(
      "attribution of {} vs {} ({:+.4f} s): each function moved alone from {}, and moved last (back out "
      "of {}):\n",
      a.variant, a.baseline, total, a.baseline, a.variant);
  out += fmt::format("  {:<11} {:<16} {:>10} {:>10} {:>6}   {:>10} {:>6}\n", "function", "moved", "alone: s",
                     "change", "share", "last: chg", "share");
  double alone_sum = 0;
  double last_sum = 0;
  for (const auto& r : a.rows) {
    const auto alone = a.alone_change_s(r);
    const auto last = a.last_change_s(r);
    alone_sum += alone.value_or(0);
    last_sum += last.value_or(0);
    out += fmt::format("  {:<11} {:<16} {:>10} {:>10} {:>6}   {:>10} {:>6}", r.function,
                       r.from + " -> " + r.to, r.alone_step_s ? fmt::format("{:.4f}", *r.alone_step_s) : "-",
                       alone ? fmt::format("{:+.4f}", *alone) : "-", alone ? percent(*alone, total) : "-",
                       last ? fmt::format("{:+.4f}", *last) : "-", last ? percent(*last, total) : "-");
    if (!r.note.empty())
      out += "  (" + r.note + ")";
    out += "\n";
  }
  out += fmt::format("  {:<28} {:>10.4f} {:>+10.4f} {:>6}   {:>+10.4f} {:>6}\n", "all together",
                     a.variant_step_s, total, percent(total, total), total, percent(total, total));
  out += fmt::format("  {:<28} {:>10} {:>+10.4f} {:>6}   {:>+10.4f} {:>6}\n", "not additive (interaction)",
                     "", total - alone_sum, percent(total - alone_sum, total), total - last_sum,
                     percent(total - last_sum, total));
  return out;
}

std::string render_attribution_csv(const std::vector<Attribution>& all) {
  std::string out = "scenario,variant,baseline,function,from,to,alone_step_time_s,alone_change_s,alone_share,"
                    "last_change_s,last_share,note\n";
  for (const auto& a : all) {
    const double total = a.total_s();
    auto share = [&](std::optional<double> change) {
      return change && std::abs(total) > 0 ? number(*change / total) : std::string();
    };
    auto opt = [](std::optional<double> v) { return v ? number(*v) : std::string(); };
    for (const auto& r : a.rows)
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", a.scenario, a.variant, a.baseline,
                         r.function, r.from, r.to, opt(r.alone_step_s), opt(a.alone_change_s(r)),
                         share(a.alone_change_s(r)), opt(a.last_change_s(r)), share(a.last_change_s(r)),
                         r.note.empty() ? std::string() : quoted(r.note));
    out += fmt::format("{},{},{},all,,,{},{},{},{},{},\n", a.scenario, a.variant, a.baseline,
                       number(a.variant_step_s), number(total), share(total), number(total), share(total));
  }
  return out;
}

} // namespace dpusim::report
