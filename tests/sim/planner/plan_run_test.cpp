// A plan's run without a process: rows that need no simulation, points given to a stand-in runner, each
// finished row journalled, failures reported, a resumed run given only what the journal lacks; the rows
// of MPI ranks as they travel and join, and two ranks played one after the other.
#include "sim/planner/plan_run.hpp"
#include "tests/sim/planner/plan_text.hpp"
#include "tests/support/bundled_catalog.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <stdexcept>
#include <string>

using namespace dpusim;
using namespace dpusim::planner;
namespace fs = std::filesystem;

namespace {

// Three layouts (the last needs 32 GPUs: infeasible on 16) for each of two variants.
const std::string kAxes = R"(axes:
  parallelism: [{tp: 8}, {tp: 4}, {tp: 8, pp: 4}]
  variants: [host-tcp, rdma-nic]
)";

struct Rig {
  Plan plan = dpusim::testing::parse_plan_text(dpusim::testing::kLlama3_8bOnTwoDgxH100, kAxes);
  SummarySpec spec = summary_spec(plan);
  Selection selection = select_points(plan, dpusim::testing::bundled_catalog(), spec, -1, Shard{}, 11);
};

/// What simulate_point returns for a point its simulation finds infeasible (point_simulation.cpp): a
/// row without a simulation, which is all a stand-in runner can give.
PointOutcome infeasible(std::size_t point) {
  return {true, "!infeasible workload.stand_in: point " + std::to_string(point), {}};
}

/// A runner that answers every point in reverse order (a pool finishes them in any), failing `fail`.
PointRunner stand_in(const Selection& selection, std::vector<std::size_t>& given,
                     std::set<std::size_t> fail = {}) {
  return [&selection, &given, fail](const std::vector<std::size_t>& to_run,
                                    const std::function<void(std::size_t, const PointOutcome&)>& done) {
    given = to_run;
    for (std::size_t k = to_run.size(); k-- > 0;) {
      const auto point = selection.points[to_run[k]].index;
      done(k, fail.contains(point) ? PointOutcome{false, {}, "killed by signal 9"} : infeasible(point));
    }
  };
}

} // namespace

TEST(PlanRun, FinalRowsNeedNoRunnerAndEachFinishedRowIsJournalled) {
  Rig rig;
  dpusim::testing::TempDir tmp;
  const auto path = fs::path(tmp.path()) / "points.journal";
  std::vector<std::size_t> given;
  std::vector<std::string> statuses;
  std::size_t announced = 0;
  {
    Journal journal(path, rig.selection.journal_key, false);
    const auto run = run_points(
        rig.selection, journal, rig.spec, -1, stand_in(rig.selection, given),
        [&](std::size_t n) { announced = n; },
        [&](const BuiltPoint&, std::string_view status) { statuses.emplace_back(status); });
    // The two layouts that need 32 GPUs are final without a simulation; the four others are run.
    EXPECT_EQ(run.simulated, 4u);
    EXPECT_EQ(announced, 4u);
    EXPECT_EQ(given.size(), 4u);
    EXPECT_EQ(statuses, std::vector<std::string>(4, "infeasible"));
    EXPECT_TRUE(run.failures.empty());
    ASSERT_EQ(run.rows.size(), 6u);
    for (std::size_t k = 0; k < 6; ++k)
      EXPECT_FALSE(run.rows[k].empty()) << "point " << k;
    for (const std::size_t k : given) {
      const auto cells = csv_line(run.rows[k]);
      EXPECT_NE(cells.find("stand_in: point " + std::to_string(rig.selection.points[k].index)),
                std::string::npos)
          << cells;
    }
  }
  // Every simulated row is in the journal.
  Journal reopened(path, rig.selection.journal_key, true);
  EXPECT_EQ(reopened.kept().size(), 4u);
}

TEST(PlanRun, AFailedPointIsReportedNotJournalledAndAResumedRunGetsOnlyIt) {
  Rig rig;
  dpusim::testing::TempDir tmp;
  const auto path = fs::path(tmp.path()) / "points.journal";
  std::vector<std::size_t> given;
  std::size_t failed_point = 0;
  {
    Journal journal(path, rig.selection.journal_key, false);
    // Fail the first point the runner gets (pending_points on a copy: it clears infeasible points).
    auto copy = rig.selection;
    const std::size_t failed = pending_points(copy, {}, rig.spec, -1).to_run.front();
    failed_point = rig.selection.points[failed].index;
    const auto run =
        run_points(rig.selection, journal, rig.spec, -1, stand_in(rig.selection, given, {failed_point}));
    ASSERT_EQ(run.failures.size(), 1u);
    EXPECT_EQ(run.failures[0], "point " + std::to_string(failed_point) + " failed: killed by signal 9");
    EXPECT_TRUE(run.rows[failed].empty());
  }
  Rig again;
  Journal journal(path, again.selection.journal_key, true);
  ASSERT_EQ(journal.kept().size(), 3u);
  const auto run = run_points(again.selection, journal, again.spec, -1, stand_in(again.selection, given));
  EXPECT_EQ(run.kept, 3u);
  ASSERT_EQ(given.size(), 1u);
  EXPECT_EQ(again.selection.points[given[0]].index, failed_point);
  EXPECT_TRUE(run.failures.empty());
  for (const auto& row : run.rows)
    EXPECT_FALSE(row.empty());
}

TEST(PlanRun, NothingToSimulateCallsNoRunner) {
  Rig rig;
  dpusim::testing::TempDir tmp;
  Journal journal(fs::path(tmp.path()) / "points.journal", rig.selection.journal_key, false);
  // refine 0: every feasible point keeps its estimate.
  auto selection = select_points(rig.plan, dpusim::testing::bundled_catalog(), rig.spec, 0, Shard{}, 11);
  bool ran = false;
  const auto run =
      run_points(selection, journal, rig.spec, 0,
                 [&](const std::vector<std::size_t>&,
                     const std::function<void(std::size_t, const PointOutcome&)>&) { ran = true; });
  EXPECT_FALSE(ran);
  EXPECT_EQ(run.simulated, 0u);
  EXPECT_EQ(run.rows.size(), 6u);
}

TEST(PlanRun, RankRowsTravelAsTheyAreAndJoinInPointOrder) {
  const std::vector<std::string> awkward = {"7", "a, b", "say \"hi\"", "two\nlines", "12:34", ""};
  RankRows first;
  first.rows = {{4, awkward}, {0, {"x"}}};
  first.failures = {"point 2 failed: killed by signal 9"};
  RankRows second;
  second.rows = {{1, {}}, {3, {"y", "z"}}};
  const auto back = decode(encode(first));
  EXPECT_EQ(back.rows, first.rows);
  EXPECT_EQ(back.failures, first.failures);
  const auto joined = join_ranks({encode(first), encode(second)});
  ASSERT_EQ(joined.rows.size(), 4u);
  EXPECT_EQ(joined.rows[0].first, 0u);
  EXPECT_EQ(joined.rows[1].first, 1u);
  EXPECT_EQ(joined.rows[2].first, 3u);
  EXPECT_EQ(joined.rows[3].first, 4u);
  EXPECT_EQ(joined.rows[3].second, awkward);
  EXPECT_EQ(joined.failures, first.failures);
  // What encode did not write is refused, never read past its end.
  const auto text = encode(first);
  for (const std::string& bad : {text.substr(0, text.size() - 3), text + "1:x", std::string("x:1"),
                                 std::string("99:1"), std::string("1:a"), std::string("")})
    EXPECT_THROW((void)decode(bad), std::invalid_argument) << bad;
}

namespace {

/// Two MPI ranks played one after the other: rank 1 hands its rows to `sent`; rank 0 gathers its own and
/// what rank 1 sent.
class TwoRanks : public PlanRanks {
public:
  TwoRanks(int rank, std::string& sent) : rank_(rank), sent_(sent) {}
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return 2; }
  [[nodiscard]] std::vector<std::string> gather(const std::string& mine) override {
    ++gathers;
    if (rank_ == 1) {
      sent_ = mine;
      return {};
    }
    return {mine, sent_};
  }
  int gathers = 0;

private:
  int rank_;
  std::string& sent_;
};

} // namespace

TEST(PlanRun, UnderTwoRanksRankZeroGetsEveryRowInPointOrder) {
  Rig rig;
  dpusim::testing::TempDir tmp;
  std::vector<std::size_t> given;
  // The whole plan in one process, as a reference.
  PlanRunSettings alone;
  alone.journal = fs::path(tmp.path()) / "alone.journal";
  alone.journal_key = rig.selection.journal_key;
  auto whole = rig.selection;
  const auto reference = run_plan(whole, rig.spec, alone, stand_in(whole, given), nullptr);
  ASSERT_EQ(reference.rows.size(), 6u);
  std::string sent;
  std::vector<std::vector<std::string>> rows_of_rank(2);
  for (const int rank : {1, 0}) {
    const Shard shard{static_cast<std::size_t>(rank) + 1, 2};
    auto selection = select_points(rig.plan, dpusim::testing::bundled_catalog(), rig.spec, -1, shard, 11);
    TwoRanks ranks(rank, sent);
    bool prepared = false;
    PlanRunSettings settings{fs::path(tmp.path()) / ("rank-" + std::to_string(rank) + ".journal"),
                             selection.journal_key, false, -1, [&] { prepared = true; }};
    const auto run = run_plan(selection, rig.spec, settings, stand_in(selection, given), &ranks);
    EXPECT_TRUE(prepared);
    EXPECT_EQ(ranks.gathers, 1);
    EXPECT_TRUE(run.failures.empty());
    ASSERT_NE(run.journal, nullptr);
    if (rank == 1)
      EXPECT_TRUE(run.rows.empty()); // its rows went to rank 0
    else
      EXPECT_EQ(run.rows, reference.rows);
  }
}

TEST(PlanRun, UnderRanksWhatThrowsIsTheRanksFailureAndItStillGathers) {
  Rig rig;
  dpusim::testing::TempDir tmp;
  const PointRunner broken = [](const std::vector<std::size_t>&,
                                const std::function<void(std::size_t, const PointOutcome&)>&) {
    throw std::runtime_error("no process could be started");
  };
  PlanRunSettings settings;
  settings.journal = fs::path(tmp.path()) / "points.journal";
  settings.journal_key = rig.selection.journal_key;
  std::string sent;
  TwoRanks ranks(1, sent);
  const auto run = run_plan(rig.selection, rig.spec, settings, broken, &ranks);
  EXPECT_EQ(ranks.gathers, 1);
  const auto back = decode(sent);
  EXPECT_EQ(back.failures, std::vector<std::string>{"rank 1: no process could be started"});
  // Without ranks the exception ends the run.
  auto again = rig.selection;
  EXPECT_THROW((void)run_plan(again, rig.spec, settings, broken, nullptr), std::runtime_error);
  // A directory that cannot be prepared is a failure too, before any journal.
  settings.prepare = [] { throw std::runtime_error("cannot create out/"); };
  TwoRanks first(0, sent);
  sent = encode(RankRows{});
  const auto failed = run_plan(again, rig.spec, settings, broken, &first);
  EXPECT_EQ(failed.journal, nullptr);
  EXPECT_EQ(failed.failures, std::vector<std::string>{"rank 0: cannot create out/"});
}
