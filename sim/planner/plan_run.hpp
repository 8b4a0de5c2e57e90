// A plan's run once its points are selected: the journal opened (or resumed), the rows that need no
// simulation, the points simulated by whatever runs them (a pool of processes, a test's stand-in), each
// finished row journalled as it comes, and the failures; then, under MPI, the ranks' rows joined in
// point order at rank 0. No process, option or MPI call here: `dpusim plan` (sim/cli/command_plan.cpp)
// parses the options, selects the points, runs them in processes, lends its MPI world and publishes
// what this returns.
#pragma once

#include "sim/planner/journal.hpp"
#include "sim/planner/point_selection.hpp"
#include "sim/planner/table.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dpusim::planner {

/// What became of one point's simulation: its output (simulate_point's), or why it failed.
struct PointOutcome {
  bool ok = false;
  std::string output;  // simulate_point's return, where ok
  std::string failure; // what went wrong, where not
};

/// Simulates the selection's points `to_run` (indices into Selection::points) and calls `done(k,
/// outcome)` for the k-th of them as each finishes, one call at a time, in any order.
using PointRunner = std::function<void(const std::vector<std::size_t>& to_run,
                                       const std::function<void(std::size_t, const PointOutcome&)>& done)>;

/// A finished point for progress: the point, and "done", "infeasible" or "failed".
using PointDone = std::function<void(const BuiltPoint&, std::string_view status)>;

struct PlanRun {
  std::vector<std::vector<std::string>> rows; // by selection point; empty where the point failed
  std::vector<std::string> failures;          // "point N failed: why", in the order they came
  std::size_t kept = 0;                       // rows the journal kept from an earlier run
  std::size_t simulated = 0;                  // points given to the runner
};

/// The rows of `selection`: final ones (infeasible, estimated, kept by the journal) as they are, the
/// rest simulated by `runner`; each simulated row is appended to `journal` as it finishes (a failed point
/// is not). `started(to_simulate)` is called once, before the runner, with how many points it gets.
PlanRun run_points(Selection& selection, Journal& journal, const SummarySpec& spec, int refine,
                   const PointRunner& runner, const std::function<void(std::size_t)>& started = {},
                   const PointDone& on_done = {});

/// One MPI rank's share of a plan run, as it travels to rank 0.
struct RankRows {
  std::vector<std::pair<std::size_t, std::vector<std::string>>> rows; // (point index, row)
  std::vector<std::string> failures;
};
std::string encode(const RankRows& r);
/// Throws std::invalid_argument where `in` is not what encode wrote.
RankRows decode(std::string_view in);

/// The ranks' rows joined in point order (a point's row from whichever rank has it), their failures in
/// rank order.
RankRows join_ranks(const std::vector<std::string>& gathered);

/// The other processes of an MPI run, as a plan's run needs them.
class PlanRanks {
public:
  virtual ~PlanRanks() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// A collective call: once every rank has called it, each rank's `mine` at rank 0 in rank order
  /// (empty on the other ranks).
  [[nodiscard]] virtual std::vector<std::string> gather(const std::string& mine) = 0;
};

struct PlanRunSettings {
  std::filesystem::path journal; // this process's journal file (its directory exists)
  std::uint64_t journal_key = 0; // the journal's fingerprint: Selection::journal_key
  bool resume = false;           // keep what a journal of the same plan holds
  int refine = -1;
  /// Called first, as part of the run (under MPI what it throws is this rank's failure): `dpusim plan`
  /// creates its output directory, where the journal lives.
  std::function<void()> prepare;
};

/// What a plan's run gives to publish.
struct PlanRows {
  std::vector<std::vector<std::string>> rows; // in point order: the selection's, at rank 0 every rank's
  std::vector<std::string> failures;          // at rank 0 every rank's, in rank order
  std::unique_ptr<Journal> journal;           // to remove once the rows are published (null: not opened)
};

/// Opens the journal, runs the selection's points (run_points) and, with `ranks`, joins every rank's
/// rows at rank 0. Without ranks an exception ends the run; with them it becomes this rank's failure, so
/// that every rank reaches the gather (a rank that left would stop the others there).
PlanRows run_plan(Selection& selection, const SummarySpec& spec, const PlanRunSettings& settings,
                  const PointRunner& runner, PlanRanks* ranks,
                  const std::function<void(const Journal&, std::size_t)>& started = {},
                  const PointDone& on_done = {});

} // namespace dpusim::planner
