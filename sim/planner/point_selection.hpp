// Which points of a plan a run simulates, decided before anything is written: every point of the run's
// shard built (its scenario read and checked), every feasible one estimated, and with refine >= 0 only the
// K fastest estimates of each configuration kept for simulation. Then, given what a journal kept, which
// rows are final without a simulation. No process, file or simulation here: `dpusim plan` runs what it
// selects (sim/cli/command_plan.cpp).
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/planner/plan_file.hpp"
#include "sim/planner/points.hpp"
#include "sim/planner/table.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dpusim::planner {

/// The points p of a plan with p mod count = index - 1 (index 1-based; 1/1: all of them).
struct Shard {
  std::size_t index = 1;
  std::size_t count = 1;
  [[nodiscard]] bool holds(std::size_t point) const { return point % count == index - 1; }
};

/// A point's estimate: its row (tier estimated) and step; absent where the estimator does not model the
/// point (it is then simulated whatever refine says).
struct PointEstimate {
  double step_s = 0;
  double tokens_per_s = 0;
  std::vector<std::string> row;
};

/// The configuration a point belongs to for refine: every input but the layout's (parallelism,
/// recomputation, ZeRO stage, micro-batch), which are what the estimate ranks.
std::string configuration_of(const BuiltPoint& p);

/// The point's estimate (`p` has a scenario), or nullopt where the estimator does not model it or the
/// simulation would find it wrong (it says so for the point).
std::optional<PointEstimate> estimate_point(const BuiltPoint& p, const catalog::Catalog& cat,
                                            const Plan& plan, const SummarySpec& spec);

struct Selection {
  /// The shard's points in point order; a point keeps its inputs and reason, not its scenario (a
  /// simulation process builds it again, so that a plan of many points does not hold every scenario).
  std::vector<BuiltPoint> points;
  std::vector<bool> feasible;                          // by points
  std::vector<std::optional<PointEstimate>> estimates; // by points
  std::set<std::size_t> simulated;                     // with refine >= 0: the plan's points to simulate
  std::uint64_t journal_key = 0; // `key` extended with each of the shard's points' scenario trees
};

/// Builds and estimates the points (every point of the plan with refine >= 0, since the ranking within a
/// configuration spans the plan; else the shard's), ranks each configuration's estimates and keeps the
/// `refine` fastest (ties by point); refine < 0 simulates every feasible point.
Selection select_points(const Plan& plan, const catalog::Catalog& cat, const SummarySpec& spec, int refine,
                        const Shard& shard, std::uint64_t key);

/// What a selection leaves to simulate, and the rows that are final already: an infeasible point's
/// (its reason), an unrefined point's estimate, a point the journal kept. `rows` is by selection point.
struct Pending {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::size_t> to_run; // indices into Selection::points, in order
};
Pending pending_points(Selection& selection, const std::map<std::size_t, std::vector<std::string>>& kept,
                       const SummarySpec& spec, int refine);

} // namespace dpusim::planner
