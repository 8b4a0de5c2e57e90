#include "sim/planner/plan_run.hpp"

#include "sim/planner/point_simulation.hpp"

#include <fmt/format.h>
#include <map>
#include <optional>
#include <stdexcept>

namespace dpusim::planner {

PlanRun run_points(Selection& selection, Journal& journal, const SummarySpec& spec, int refine,
                   const PointRunner& runner, const std::function<void(std::size_t)>& started,
                   const PointDone& on_done) {
  PlanRun run;
  run.kept = journal.kept().size();
  auto pending = pending_points(selection, journal.kept(), spec, refine);
  run.rows = std::move(pending.rows);
  const auto& to_run = pending.to_run; // indices into selection.points
  run.simulated = to_run.size();
  if (started)
    started(to_run.size());
  if (to_run.empty())
    return run;
  runner(to_run, [&](std::size_t k, const PointOutcome& o) {
    const std::size_t i = to_run.at(k);
    const auto& p = selection.points[i];
    bool infeasible = false;
    if (o.ok) {
      const auto& est = selection.estimates[i];
      run.rows[i] = simulated_row(p, o.output, spec, est ? std::optional<double>(est->step_s) : std::nullopt,
                                  &infeasible);
      journal.append(p.index, run.rows[i]);
    } else {
      run.failures.push_back(fmt::format("point {} failed: {}", p.index, o.failure));
    }
    if (on_done)
      on_done(p, infeasible ? "infeasible" : o.ok ? "done" : "failed");
  });
  return run;
}

PlanRows run_plan(Selection& selection, const SummarySpec& spec, const PlanRunSettings& settings,
                  const PointRunner& runner, PlanRanks* ranks,
                  const std::function<void(const Journal&, std::size_t)>& started, const PointDone& on_done) {
  PlanRows out;
  try {
    if (settings.prepare)
      settings.prepare();
    out.journal = std::make_unique<Journal>(settings.journal, settings.journal_key, settings.resume);
    auto run = run_points(
        selection, *out.journal, spec, settings.refine, runner,
        [&](std::size_t to_simulate) {
          if (started)
            started(*out.journal, to_simulate);
        },
        on_done);
    out.rows = std::move(run.rows);
    out.failures = std::move(run.failures);
  } catch (const std::exception& e) {
    if (ranks == nullptr)
      throw;
    out.rows.assign(selection.points.size(), {});
    out.failures.push_back(fmt::format("rank {}: {}", ranks->rank(), e.what()));
  }
  if (ranks == nullptr)
    return out;
  // Every rank's rows and failures to rank 0, in point order.
  RankRows mine;
  for (std::size_t k = 0; k < selection.points.size() && k < out.rows.size(); ++k)
    mine.rows.emplace_back(selection.points[k].index, std::move(out.rows[k]));
  mine.failures = std::move(out.failures);
  const auto gathered = ranks->gather(encode(mine));
  out.rows.clear();
  out.failures.clear();
  if (ranks->rank() == 0) {
    auto joined = join_ranks(gathered);
    for (auto& [index, row] : joined.rows)
      out.rows.push_back(std::move(row));
    out.failures = std::move(joined.failures);
  }
  return out;
}

namespace {

// Length-prefixed fields, so that any text (commas, newlines, quotes) travels as it is.
void put(std::string& out, std::string_view field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
}

std::string take(std::string_view& in) {
  const auto colon = in.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 19)
    throw std::invalid_argument("a rank's rows: a field without its length");
  std::size_t n = 0;
  for (const char c : in.substr(0, colon)) {
    if (c < '0' || c > '9')
      throw std::invalid_argument("a rank's rows: a field's length is not a number");
    n = n * 10 + static_cast<std::size_t>(c - '0');
  }
  if (n > in.size() - colon - 1)
    throw std::invalid_argument("a rank's rows: a field longer than what is left");
  std::string field(in.substr(colon + 1, n));
  in.remove_prefix(colon + 1 + n);
  return field;
}

std::size_t take_count(std::string_view& in) {
  const auto field = take(in);
  if (field.empty() || field.size() > 19 || field.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("a rank's rows: a count that is not a number");
  return static_cast<std::size_t>(std::stoull(field));
}

} // namespace

std::string encode(const RankRows& r) {
  std::string out;
  put(out, std::to_string(r.rows.size()));
  for (const auto& [index, row] : r.rows) {
    put(out, std::to_string(index));
    put(out, std::to_string(row.size()));
    for (const auto& f : row)
      put(out, f);
  }
  put(out, std::to_string(r.failures.size()));
  for (const auto& f : r.failures)
    put(out, f);
  return out;
}

RankRows decode(std::string_view in) {
  RankRows r;
  for (auto n = take_count(in); n > 0; --n) {
    const auto index = take_count(in);
    std::vector<std::string> row;
    for (auto m = take_count(in); m > 0; --m)
      row.push_back(take(in));
    r.rows.emplace_back(index, std::move(row));
  }
  for (auto n = take_count(in); n > 0; --n)
    r.failures.push_back(take(in));
  if (!in.empty())
    throw std::invalid_argument("a rank's rows: more after the failures");
  return r;
}

RankRows join_ranks(const std::vector<std::string>& gathered) {
  std::map<std::size_t, std::vector<std::string>> by_point;
  RankRows joined;
  for (const auto& g : gathered) {
    auto r = decode(g);
    for (auto& [index, row] : r.rows)
      by_point[index] = std::move(row);
    for (auto& f : r.failures)
      joined.failures.push_back(std::move(f));
  }
  for (auto& [index, row] : by_point)
    joined.rows.emplace_back(index, std::move(row));
  return joined;
}

} // namespace dpusim::planner
