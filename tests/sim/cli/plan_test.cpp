// `dpusim plan` and `dpusim merge`, driven as a user does: malformed plans are rejected with their
// message and nothing written; points.csv is byte-identical whatever --jobs, and when joined from
// shards; a plan killed with SIGKILL and resumed loses and duplicates no row.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"
#include "tests/support/sanitized.hpp"
#include "tests/support/subprocess.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using dpusim::testing::expectations;
using dpusim::testing::run_command;
using dpusim::testing::spawn_quietly;
using dpusim::testing::TempDir;

namespace {

const fs::path kSource = DPUSIM_SOURCE_DIR;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

/// A plan over the quickstart scenario with `axes` (YAML lines under "axes:"), written into `dir`.
std::string plan_in(const TempDir& dir, const std::string& axes, const std::string& name = "t") {
  const fs::path path = fs::path(dir.path()) / (name + ".yaml");
  write(path, "name: " + name + "\nscenario: " + (kSource / "scenarios/examples/quickstart.yaml").string() +
                  "\ntrain_tokens: 300B\naxes:\n" + axes + "constraints: {deadline: 30d}\n");
  return path.string();
}

// 8 points: two node counts, a parallelism that divides and one that does not, two variants.
const std::string kSmallAxes =
    "  nodes: [2, 4]\n  parallelism: [{tp: 8}, {tp: 3}]\n  variants: [host-tcp, rdma-nic]\n";

std::vector<std::string> bad_plans() {
  return dpusim::testing::bundled_inputs("tests/bad_input/plans");
}

/// The point indices of a journal's whole entries (a line cut short by a kill is not one).
std::vector<std::string> journal_points(const fs::path& journal) {
  std::vector<std::string> points;
  const std::string text = read(journal);
  std::size_t start = text.find('\n'); // after the header
  while (start != std::string::npos && start + 1 < text.size()) {
    const auto end = text.find('\n', start + 1);
    if (end == std::string::npos)
      break;
    const std::string line = text.substr(start + 1, end - start - 1);
    points.push_back(line.substr(0, line.find(' ')));
    start = end;
  }
  return points;
}

class BadPlan : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST(BadPlanSet, HasTheIssuesCases) {
  const auto files = bad_plans();
  for (const char* name : {"unknown-axis.yaml", "empty-range.yaml", "contradictory-constraints.yaml"})
    EXPECT_TRUE(std::any_of(files.begin(), files.end(), [&](const std::string& f) {
      return fs::path(f).filename() == name;
    })) << name;
}

TEST_P(BadPlan, IsRejectedWithItsMessageAndWritesNothing) {
  const std::string file = GetParam();
  const auto expects = expectations(file);
  ASSERT_FALSE(expects.empty()) << file << " has no \"# expect:\" line";
  TempDir tmp;
  const std::string out = tmp.path() + "/out";
  const auto r = run_command({DPUSIM_BINARY, "plan", file, "--out", out, "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << file << "\n" << r.err;
  EXPECT_EQ(r.err.rfind(file + ":", 0), 0u) << "the message must start with the file name: " << r.err;
  for (const auto& e : expects)
    EXPECT_NE(r.err.find(e), std::string::npos) << "expected \"" << e << "\" in:\n" << r.err;
  EXPECT_FALSE(fs::exists(out)) << "plan wrote output for a rejected plan";
}

INSTANTIATE_TEST_SUITE_P(Plans, BadPlan, ::testing::ValuesIn(bad_plans()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = fs::path(param_info.param).stem().string();
                           for (auto& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

TEST(PlanCommand, UsageErrorsExitWithTwoAndWriteNothing) {
  TempDir tmp;
  const auto plan = plan_in(tmp, kSmallAxes);
  const std::string out = tmp.path() + "/out";
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--shard", "3/2"}, {"--shard", "0/2"}, {"--shard", "x"}, {"--jobs", "0"}}) {
    std::vector<std::string> argv{DPUSIM_BINARY, "plan", plan, "--out", out};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const auto r = run_command(argv);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << " " << extra[1] << ": " << r.err;
  }
  EXPECT_EQ(run_command({DPUSIM_BINARY, "plan"}).exit_code, 2);
  EXPECT_FALSE(fs::exists(out));
  const auto help = run_command({DPUSIM_BINARY, "--help"});
  EXPECT_NE(help.out.find("  plan PLAN"), std::string::npos);
  EXPECT_NE(help.out.find("  merge DIR"), std::string::npos);
  const auto plan_help = run_command({DPUSIM_BINARY, "plan", "--help"});
  EXPECT_EQ(plan_help.exit_code, 0);
  EXPECT_NE(plan_help.out.find("--shard"), std::string::npos);
  EXPECT_NE(plan_help.out.find("--resume"), std::string::npos);
}

TEST(PlanCommand, WritesEveryPointWithItsReasonAndTheSummary) {
  TempDir tmp;
  const auto plan = plan_in(tmp, kSmallAxes);
  const auto r = run_command({DPUSIM_BINARY, "plan", plan, "--out", tmp.path() + "/out", "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto csv = read(fs::path(tmp.path()) / "out/points.csv");
  std::istringstream in(csv);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line))
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 9u) << csv; // the header and 8 points
  EXPECT_EQ(lines[0].rfind("point,nodes,gpus,", 0), 0u);
  EXPECT_NE(lines[0].find(",feasible,reason,tier,step_time_s,estimated_step_time_s,tokens_per_s,mfu,"),
            std::string::npos);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].rfind(std::to_string(i - 1) + ",", 0), 0u) << "rows in point order: " << lines[i];
    const bool tp3 = lines[i].find(",3,1,1,1,,") != std::string::npos; // tp 3: no dp
    EXPECT_EQ(lines[i].find(",false,workload.parallelism: tp x cp x pp = 3") != std::string::npos, tp3)
        << lines[i];
  }
  EXPECT_NE(r.out.find("plan t: 8 points, 4 feasible"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fastest to train: point "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("what offload changes, against host-tcp"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(fs::path(tmp.path()) / "out/points.journal")) << "the journal outlived the plan";
}

TEST(PlanCommand, PointsCsvIsByteIdenticalWhateverJobsAndWhenMergedFromShards) {
  TempDir tmp;
  const auto plan = plan_in(tmp, kSmallAxes);
  const fs::path dir = tmp.path();
  ASSERT_EQ(run_command({DPUSIM_BINARY, "plan", plan, "--out", (dir / "j1").string(), "-q", "--jobs", "1"})
                .exit_code,
            0);
  ASSERT_EQ(run_command({DPUSIM_BINARY, "plan", plan, "--out", (dir / "j2").string(), "-q", "--jobs", "2"})
                .exit_code,
            0);
  const auto serial = read(dir / "j1/points.csv");
  EXPECT_EQ(read(dir / "j2/points.csv"), serial);
  std::vector<std::string> merge{DPUSIM_BINARY, "merge"};
  for (const char* shard : {"3/3", "1/3", "2/3"}) {
    const auto out = dir / (std::string("s") + shard[0]);
    const auto r = run_command({DPUSIM_BINARY, "plan", plan, "--shard", shard, "--out", out.string(), "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    merge.push_back(out.string());
  }
  EXPECT_NE(read(dir / "s1/points.csv"), serial) << "a shard holds only its own points";
  merge.insert(merge.end(), {"--out", (dir / "merged").string()});
  const auto r = run_command(merge);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read(dir / "merged/points.csv"), serial);
  EXPECT_EQ(read(dir / "merged/plan-info.json"), read(dir / "j1/plan-info.json"));
  EXPECT_FALSE(fs::exists(dir / "s1/plan-info.json")) << "a shard's outputs are not the plan's";
  const auto serial_summary = run_command({DPUSIM_BINARY, "plan", plan, "--out", (dir / "j3").string()});
  EXPECT_EQ(r.out.substr(0, r.out.find("wrote ")),
            serial_summary.out.substr(0, serial_summary.out.find("wrote ")));
}

TEST(MergeCommand, RefusesAnIncompleteRepeatedOrMixedSetAndWritesNothing) {
  TempDir tmp;
  const fs::path dir = tmp.path();
  const auto plan = plan_in(tmp, kSmallAxes);
  const auto other = plan_in(tmp, "  nodes: [2]\n  variants: [host-tcp, rdma-nic]\n", "other");
  for (const char* shard : {"1/2", "2/2"})
    ASSERT_EQ(run_command({DPUSIM_BINARY, "plan", plan, "--shard", shard, "--out",
                           (dir / (std::string("s") + shard[0])).string(), "-q"})
                  .exit_code,
              0);
  ASSERT_EQ(
      run_command({DPUSIM_BINARY, "plan", other, "--shard", "2/2", "--out", (dir / "o2").string(), "-q"})
          .exit_code,
      0);
  const std::string out = (dir / "merged").string();
  const auto s1 = (dir / "s1").string();
  const auto s2 = (dir / "s2").string();
  const auto missing = run_command({DPUSIM_BINARY, "merge", s1, "--out", out});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("shards missing: 2/2"), std::string::npos) << missing.err;
  const auto twice = run_command({DPUSIM_BINARY, "merge", s1, s1, s2, "--out", out});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("is given twice"), std::string::npos) << twice.err;
  const auto mixed = run_command({DPUSIM_BINARY, "merge", s1, (dir / "o2").string(), "--out", out});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("of another plan"), std::string::npos) << mixed.err;
  // Shard 2 simulated with another catalog (a comment added to one entry is enough to tell).
  fs::copy(kSource / "models/catalog/data", dir / "catalog", fs::copy_options::recursive);
  write(dir / "catalog/node/dgx-h100.yaml", read(dir / "catalog/node/dgx-h100.yaml") + "# changed\n");
  ASSERT_EQ(run_command({DPUSIM_BINARY, "plan", plan, "--shard", "2/2", "--catalog",
                         (dir / "catalog").string(), "--out", (dir / "c2").string(), "-q"})
                .exit_code,
            0);
  const auto other_catalog = run_command({DPUSIM_BINARY, "merge", s1, (dir / "c2").string(), "--out", out});
  EXPECT_EQ(other_catalog.exit_code, 2);
  EXPECT_NE(other_catalog.err.find("of another plan"), std::string::npos) << other_catalog.err;
  write(dir / "s2/points.csv", read(dir / "s1/points.csv")); // shard 2 holding shard 1's rows
  const auto wrong_rows = run_command({DPUSIM_BINARY, "merge", s1, s2, "--out", out});
  EXPECT_EQ(wrong_rows.exit_code, 2);
  EXPECT_NE(wrong_rows.err.find("is not a point of shard 2/2"), std::string::npos) << wrong_rows.err;
  EXPECT_FALSE(fs::exists(out));
}

// SIGKILL at several moments, each run resumed: the journal never loses an entry nor holds one twice,
// and the final points.csv is the uninterrupted run's, byte for byte.
TEST(PlanCommand, KilledAndResumedLosesAndDuplicatesNoRow) {
  TempDir tmp;
  const fs::path dir = tmp.path();
  // 64 simulations of a few tens of milliseconds each on one core.
  const auto plan =
      plan_in(tmp, "  nodes: [2, 4, 8, 16]\n  seeds: {from: 1, to: 8}\n  variants: [host-tcp, rdma-nic]\n");
  ASSERT_EQ(run_command({DPUSIM_BINARY, "plan", plan, "--out", (dir / "whole").string(), "-q"}).exit_code, 0);
  const auto reference = read(dir / "whole/points.csv");

  const fs::path out = dir / "killed";
  const fs::path journal = out / "points.journal";
  std::size_t entries = 0;
  int kills = 0;
  for (const int wait_for : {0, 3, 9, 20}) { // entries in the journal before the kill
    const int pid =
        spawn_quietly({DPUSIM_BINARY, "plan", plan, "--out", out.string(), "-q", "--jobs", "1", "--resume"});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while ((!fs::exists(journal) || journal_points(journal).size() < static_cast<std::size_t>(wait_for)) &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status))
      break; // it finished before the kill: nothing left to resume
    ++kills;
    ASSERT_FALSE(fs::exists(out / "points.csv")) << "a killed plan published points.csv";
    if (!fs::exists(journal))
      continue;
    const auto points = journal_points(journal);
    EXPECT_GE(points.size(), entries) << "the resumed run lost journalled points";
    EXPECT_EQ(std::set<std::string>(points.begin(), points.end()).size(), points.size())
        << "a point is journalled twice";
    entries = points.size();
  }
  EXPECT_GE(kills, 3) << "the plan finished before it could be killed; make it longer";
  const auto r = run_command({DPUSIM_BINARY, "plan", plan, "--out", out.string(), "--resume"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // It simulated only what the journal lacked.
  EXPECT_NE(r.err.find("resuming: " + std::to_string(entries) + " points from"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(", " + std::to_string(64 - entries) + " to simulate"), std::string::npos) << r.err;
  EXPECT_EQ(read(out / "points.csv"), reference);
  EXPECT_FALSE(fs::exists(journal));
}

TEST(PlanCommand, ResumeRefusesTheJournalOfAnotherPlan) {
  TempDir tmp;
  const fs::path dir = tmp.path();
  const auto plan = plan_in(tmp, kSmallAxes);
  fs::create_directories(dir / "out");
  write(dir / "out/points.journal", "dpusim-plan-journal 1 0000000000000001\n");
  const auto r =
      run_command({DPUSIM_BINARY, "plan", plan, "--out", (dir / "out").string(), "--resume", "-q"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("points.journal:1:1: error: this is the journal of another plan"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "out/points.csv"));
  // Without --resume it starts over.
  EXPECT_EQ(run_command({DPUSIM_BINARY, "plan", plan, "--out", (dir / "out").string(), "-q"}).exit_code, 0);
}

// A point is the scenario its overrides describe: the same simulation `dpusim run` gives that scenario
// written out by hand (the quickstart on 4 nodes, DP 4).
TEST(PlanCommand, AdaptiveRoutingFallsBackOnAPlansConnectX7PointAsInACompare) {
  // compare hashes the ConnectX-7 variant's connections (it cannot place out-of-order packets) and
  // routes the BlueField-3's adaptively, each with a note; a plan's points, one variant each, must agree:
  // the ConnectX-7 point is simulated hashed, not refused, and takes compare's step.
  TempDir tmp;
  const auto plan = plan_in(tmp, "  routing: [adaptive]\n  variants: [rdma-nic, dpu]\n");
  ASSERT_EQ(run_command({DPUSIM_BINARY, "plan", plan, "--out", tmp.path() + "/plan", "-q"}).exit_code, 0);
  const auto rows = dpusim::testing::csv_rows(fs::path(tmp.path()) / "plan/points.csv");
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& r : rows)
    EXPECT_EQ(r.at("feasible"), "true") << r.at("variant") << ": " << r.at("reason");
  std::string scenario = read(kSource / "scenarios/examples/quickstart.yaml");
  const std::string fabric_end = "oversubscription: \"1:1\"}";
  scenario.replace(scenario.find(fabric_end), fabric_end.size(),
                   "oversubscription: \"1:1\", routing: adaptive}");
  for (const auto& r : rows) {
    std::string out;
    const double compared = dpusim::testing::simulate(tmp, "by-hand-" + r.at("variant"), scenario,
                                                      "step_time_s", &out, {"--variant", r.at("variant")});
    EXPECT_NEAR(std::stod(r.at("step_time_s")), compared, 1e-8 * compared) << r.at("variant");
    if (r.at("variant") == "rdma-nic") {
      EXPECT_NE(out.find("routing: adaptive asked for, but the connectx-7 does not place"), std::string::npos)
          << out;
    }
  }
}

TEST(PlanCommand, APointSimulatesAsTheScenarioItStandsFor) {
  TempDir tmp;
  const auto plan = plan_in(tmp, "  nodes: [4]\n  variants: [rdma-nic]\n");
  ASSERT_EQ(run_command({DPUSIM_BINARY, "plan", plan, "--out", tmp.path() + "/plan", "-q"}).exit_code, 0);
  std::istringstream csv(read(fs::path(tmp.path()) / "plan/points.csv"));
  std::string header;
  std::string row;
  std::getline(csv, header);
  std::getline(csv, row);
  auto cell = [](const std::string& line, std::size_t i) {
    std::istringstream in(line);
    std::string c;
    for (std::size_t k = 0; k <= i && std::getline(in, c, ',');)
      ++k;
    return c;
  };
  std::size_t step_column = 0;
  {
    std::istringstream in(header);
    std::string c;
    while (std::getline(in, c, ',') && c != "step_time_s")
      ++step_column;
  }
  std::string scenario = read(kSource / "scenarios/examples/quickstart.yaml");
  scenario.replace(scenario.find("nodes: 8"), 8, "nodes: 4");
  scenario.replace(scenario.find("{tp: 8, dp: 8}"), 14, "{tp: 8, dp: 4}");
  const double by_hand =
      dpusim::testing::simulate(tmp, "by-hand", scenario, "step_time_s", nullptr, {"--variant", "rdma-nic"});
  ASSERT_GT(by_hand, 0);
  EXPECT_NEAR(std::stod(cell(row, step_column)), by_hand, 1e-8 * by_hand) << row;
}

namespace {

/// A plan with goodput, power and costs over a checkpointed 2-node scenario: two node types (the DGX A100
/// has no interruption rates in the catalog), two node counts, a NIC and a DPU variant.
std::string economics_plan(const TempDir& dir) {
  const fs::path path = fs::path(dir.path()) / "econ.yaml";
  write(path, R"(name: econ
scenario:
  name: base
  cluster:
    nodes: 2
    node: dgx-h100
    nic: connectx-7
    dpu: bluefield-3
    fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}
    storage: {servers: 2, link: 400Gbps, read_rate: 20GB/s}
  workload:
    model: gpt3-13b
    seq_len: 2048
    global_batch: 64
    micro_batch: 1
    parallelism: {tp: 8, dp: 2}
    checkpoint: {every: 100}
  offload: {baseline: rdma-nic, variants: [dpu]}
train_tokens: 100B
axes:
  node: [dgx-h100, dgx-a100]
  nodes: [2, 4]
objectives: [cost, energy]
goodput: {restart: 20min}
power: {pue: 1.25, energy_price: 0.1USD/kWh, switch: 1kW}
costs: {node: 250kUSD, nic: 1500USD, dpu: 2500USD, switch: 20kUSD, link: 300USD, life: 4y, host_core_hour: 0.05USD}
)");
  return path.string();
}

/// CSV text as rows of cells (RFC 4180 quotes).
std::vector<std::vector<std::string>> parse_csv_text(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell_text;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"')
        cell_text += text[++i];
      else if (ch == '"')
        quoted = false;
      else
        cell_text += ch;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',' || ch == '\n') {
      rows.back().push_back(cell_text);
      cell_text.clear();
      if (ch == '\n')
        rows.emplace_back();
    } else {
      cell_text += ch;
    }
  }
  if (rows.back().empty())
    rows.pop_back();
  return rows;
}

double cell(const std::vector<std::string>& header, const std::vector<std::string>& row,
            const std::string& c) {
  const auto i = static_cast<std::size_t>(std::find(header.begin(), header.end(), c) - header.begin());
  return i < row.size() ? std::strtod(row[i].c_str(), nullptr) : -1;
}

} // namespace

namespace {
/// `plan` run as two shards under `dir` and merged: the points.csv, pareto.csv and summary (`serial`'s
/// console output) of the serial run in `dir`/out.
void expect_shards_merge_to(const std::string& plan, const fs::path& dir, const std::string& serial) {
  std::vector<std::string> merge{DPUSIM_BINARY, "merge"};
  for (const char* shard : {"1/2", "2/2"}) {
    const auto out = dir / (std::string("s") + shard[0]);
    ASSERT_EQ(
        run_command({DPUSIM_BINARY, "plan", plan, "--shard", shard, "--out", out.string(), "-q"}).exit_code,
        0);
    merge.push_back(out.string());
  }
  merge.insert(merge.end(), {"--out", (dir / "merged").string()});
  const auto m = run_command(merge);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(read(dir / "merged/points.csv"), read(dir / "out/points.csv"));
  EXPECT_EQ(read(dir / "merged/pareto.csv"), read(dir / "out/pareto.csv"));
  EXPECT_EQ(m.out.substr(0, m.out.find("wrote ")), serial.substr(0, serial.find("wrote ")));
}
} // namespace

TEST(PlanCommand, GoodputPowerAndCostColumnsFollowTheirModels) {
  TempDir tmp;
  const auto plan = economics_plan(tmp);
  const fs::path dir = tmp.path();
  const auto r = run_command({DPUSIM_BINARY, "plan", plan, "--out", (dir / "out").string(), "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto table = parse_csv_text(read(dir / "out/points.csv"));
  ASSERT_EQ(table.size(), 9u);
  const auto& h = table.front();
  int checked = 0;
  for (std::size_t i = 1; i < table.size(); ++i) {
    const auto& row = table[i];
    const auto text = [&](const std::string& c) {
      return row.at(static_cast<std::size_t>(std::find(h.begin(), h.end(), c) - h.begin()));
    };
    if (text("node") == "dgx-a100") { // no interruption rates: infeasible, with the reason
      EXPECT_EQ(text("feasible"), "false");
      EXPECT_NE(text("reason").find("no interruption rate"), std::string::npos) << text("reason");
      continue;
    }
    ASSERT_EQ(text("feasible"), "true") << text("reason");
    const double days = cell(h, row, "time_to_train_with_failures_days");
    // Energy is facility power over the run, cost the amortised capex plus that energy's price.
    EXPECT_NEAR(cell(h, row, "energy_mwh"), cell(h, row, "power_kw") * days * 24 / 1e3, 1e-6 * days);
    EXPECT_NEAR(cell(h, row, "energy_cost_usd"), cell(h, row, "energy_mwh") * 1e3 * 0.1, 1e-3);
    const double core_hours = cell(h, row, "nodes") * cell(h, row, "host_cores_busy") * days * 24;
    EXPECT_NEAR(cell(h, row, "cost_usd"),
                cell(h, row, "capex_usd") * days / (4 * 365) + cell(h, row, "energy_cost_usd") +
                    0.05 * core_hours,
                1e-6 * cell(h, row, "cost_usd"));
    // Young's interval over the simulated write time and the job's MTBI; interruptions over the run.
    const double delta = cell(h, row, "checkpoint_write_s");
    const double mtbi_s = cell(h, row, "mtbi_h") * 3600;
    EXPECT_GT(delta, 0);
    EXPECT_NEAR(cell(h, row, "checkpoint_interval_s"),
                std::max(std::sqrt(2 * delta * mtbi_s), cell(h, row, "step_time_s")), 1e-6 * mtbi_s);
    EXPECT_NEAR(cell(h, row, "interruptions"), days * 86400 / mtbi_s, 1e-6 * days);
    EXPECT_GT(days,
              cell(h, row, "time_to_train_days") * 0.9); // failures cost time (the base's checkpoints aside)
    EXPECT_LT(cell(h, row, "goodput"), 1.0);
    // The capex is the stated prices times the parts counted.
    const double device_price = text("variant") == "dpu" ? 2500 : 1500;
    EXPECT_NEAR(cell(h, row, "capex_usd"),
                cell(h, row, "nodes") * 250e3 + cell(h, row, "devices") * device_price +
                    cell(h, row, "switches") * 20e3 + cell(h, row, "links") * 300,
                1e-6 * cell(h, row, "capex_usd"));
    EXPECT_GE(cell(h, row, "switches"), 1);
    EXPECT_GE(cell(h, row, "links"), cell(h, row, "devices"));
    // Power: the GPUs between their idle 88 W and their 700 W TDP (by the share of the step their
    // kernels run), the rest of each DGX H100 at its 2.6 kW platform draw, the switches at the stated
    // 1 kW, the devices and busy host cores, times the PUE.
    const double switches_kw = cell(h, row, "switches");
    const double platform_kw = cell(h, row, "nodes") * 2.6;
    EXPECT_GT(cell(h, row, "power_kw"), (cell(h, row, "gpus") * 0.088 + platform_kw + switches_kw) * 1.25);
    EXPECT_LT(cell(h, row, "power_kw"), (cell(h, row, "gpus") * 0.7 + platform_kw + switches_kw +
                                         cell(h, row, "devices") * 0.15 + cell(h, row, "nodes") * 0.7) *
                                            1.25);
    EXPECT_EQ(text("devices"), std::to_string(8 * static_cast<int>(cell(h, row, "nodes"))));
    EXPECT_EQ(text("device_kind"), text("variant") == "dpu" ? "dpu" : "nic");
    ++checked;
  }
  EXPECT_EQ(checked, 4);
  EXPECT_NE(r.out.find("stated: costs: capex node 250000 USD;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("switches at 1000 W each (plan)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("each busy host core charged 0.05 USD per hour"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("break-even: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dpu against rdma-nic: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cheapest run: "), std::string::npos) << r.out;

  // pareto.csv: feasible rows none of which another beats on time, cost and energy.
  const auto pareto = parse_csv_text(read(dir / "out/pareto.csv"));
  ASSERT_GE(pareto.size(), 2u);
  EXPECT_EQ(pareto.front(), h);
  for (std::size_t a = 1; a < pareto.size(); ++a)
    for (std::size_t b = 1; b < table.size(); ++b) {
      if (cell(h, table[b], "cost_usd") < 0 || table[b][h.size() - 1] != "true")
        continue;
      const bool beaten = cell(h, table[b], "time_to_train_with_failures_days") <=
                              cell(h, pareto[a], "time_to_train_with_failures_days") &&
                          cell(h, table[b], "cost_usd") <= cell(h, pareto[a], "cost_usd") &&
                          cell(h, table[b], "energy_mwh") <= cell(h, pareto[a], "energy_mwh") &&
                          table[b][0] != pareto[a][0] &&
                          (cell(h, table[b], "cost_usd") < cell(h, pareto[a], "cost_usd") ||
                           cell(h, table[b], "energy_mwh") < cell(h, pareto[a], "energy_mwh") ||
                           cell(h, table[b], "time_to_train_with_failures_days") <
                               cell(h, pareto[a], "time_to_train_with_failures_days"));
      EXPECT_FALSE(beaten) << "pareto point " << pareto[a][0] << " is beaten by point " << table[b][0];
    }

  // Merged from shards: the same points.csv, pareto.csv and summary.
  expect_shards_merge_to(plan, dir, r.out);
}

namespace {
/// The median break-even premium the summary prints for `dpu against rdma-nic`.
double break_even_against_nic(const std::string& out) {
  const std::string key = "dpu against rdma-nic: ";
  const auto at = out.find(key);
  return at == std::string::npos ? std::nan("") : std::strtod(out.c_str() + at + key.size(), nullptr);
}
} // namespace

TEST(PlanCommand, HostCoresAPointLeavesIdleAreTakenOffTheNodesPrice) {
  TempDir tmp;
  const fs::path dir = tmp.path();
  // The economics plan with 4 cores of infrastructure agents per node (on the host with a NIC, on the
  // DPU's Arm cores with a DPU), without and with a price per host core.
  auto text = read(economics_plan(tmp));
  const std::string storage = "    storage: {servers: 2";
  ASSERT_NE(text.find(storage), std::string::npos);
  text.insert(text.find(storage), "    services: {agents: 4}\n");
  const auto plain = (dir / "agents.yaml").string();
  write(plain, text);
  const std::string costs = "life: 4y, host_core_hour: 0.05USD}";
  ASSERT_NE(text.find(costs), std::string::npos);
  const auto plan = (dir / "cores.yaml").string();
  write(plan, text.replace(text.find(costs), costs.size(),
                           "life: 4y, host_core_hour: 0.05USD, host_core: 200USD}"));
  const auto r = run_command({DPUSIM_BINARY, "plan", plan, "--out", (dir / "out").string(), "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto table = parse_csv_text(read(dir / "out/points.csv"));
  const auto& h = table.front();
  int checked = 0;
  for (std::size_t i = 1; i < table.size(); ++i) {
    const auto& row = table[i];
    if (row.at(static_cast<std::size_t>(std::find(h.begin(), h.end(), "feasible") - h.begin())) != "true")
      continue;
    const bool dpu =
        row.at(static_cast<std::size_t>(std::find(h.begin(), h.end(), "variant") - h.begin())) == "dpu";
    // A DGX H100 has 2 x 56 host cores; each one beyond those busy at once (the peak, rounded up) is 200
    // USD off.
    const double nodes = cell(h, row, "nodes");
    EXPECT_GE(cell(h, row, "host_cores_peak"), cell(h, row, "host_cores_busy"));
    const double not_bought = 112 - std::ceil(cell(h, row, "host_cores_peak") - 1e-9);
    EXPECT_GT(not_bought, 0);
    EXPECT_NEAR(cell(h, row, "capex_usd"),
                nodes * (250e3 - 200 * not_bought) + cell(h, row, "devices") * (dpu ? 2500 : 1500) +
                    cell(h, row, "switches") * 20e3 + cell(h, row, "links") * 300,
                1e-6 * cell(h, row, "capex_usd"));
    ++checked;
  }
  EXPECT_EQ(checked, 4);
  EXPECT_NE(r.out.find("each core beyond them 200 USD off the node's price"), std::string::npos) << r.out;
  // The DPU keeps the agents' 4 cores (or 5, rounded up) off the host: at 200 USD each over a node's 8
  // DPUs, its break-even premium rises by 100 (or 125) USD per DPU.
  const auto without = run_command({DPUSIM_BINARY, "plan", plain, "--out", (dir / "plain").string()});
  ASSERT_EQ(without.exit_code, 0) << without.err;
  const double premium = break_even_against_nic(r.out);
  ASSERT_FALSE(std::isnan(premium)) << r.out;
  const double gain = premium - break_even_against_nic(without.out);
  EXPECT_GE(gain, 99.0) << r.out << without.out;
  EXPECT_LE(gain, 126.0) << r.out << without.out;
  // Merged from shards, the same summary (the shards carry the priced premium).
  expect_shards_merge_to(plan, dir, r.out);
}

#ifdef DPUSIM_MPIEXEC
namespace {

// mpiexec for `ranks` ranks of `args` (as root too, as in a container; more ranks than cores allowed).
// Under AddressSanitizer leak detection is off for the ranks: Open MPI's plugins, loaded and unloaded
// with dlopen, keep allocations until exit that LeakSanitizer reports from an "unknown module" no
// suppression can name. The plan command's own code is leak-checked by the tests without MPI.
std::vector<std::string> under_mpi(int ranks, std::vector<std::string> args) {
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  if (dpusim::testing::kSanitized)
    ::setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
  std::vector<std::string> argv{DPUSIM_MPIEXEC, "--oversubscribe", "-n", std::to_string(ranks)};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::vector<fs::path> journals_in(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".journal")
      out.push_back(e.path());
  return out;
}

} // namespace

// `mpirun -n 2 dpusim plan`: the ranks split the points, rank 0 publishes, and the files are the serial
// run's byte for byte; the ranks' journals are gone once it is published.
TEST(PlanMpi, TwoRanksWriteWhatASerialRunWrites) {
  TempDir tmp;
  const fs::path dir = tmp.path();
  const auto plan = plan_in(tmp, kSmallAxes);
  const auto serial = run_command({DPUSIM_BINARY, "plan", plan, "--out", (dir / "serial").string()});
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  const auto r = run_command(under_mpi(2, {DPUSIM_BINARY, "plan", plan, "--out", (dir / "mpi").string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read(dir / "mpi/points.csv"), read(dir / "serial/points.csv"));
  EXPECT_EQ(read(dir / "mpi/pareto.csv"), read(dir / "serial/pareto.csv"));
  EXPECT_EQ(r.out, serial.out.substr(0, serial.out.find("wrote ")) + "wrote " +
                       (dir / "mpi/points.csv").string() + " and " + (dir / "mpi/pareto.csv").string() + "\n")
      << "rank 0 alone prints the summary";
  EXPECT_TRUE(journals_in(dir / "mpi").empty());
  // Three ranks for eight points: uneven shares, the same files.
  const auto three =
      run_command(under_mpi(3, {DPUSIM_BINARY, "plan", plan, "--out", (dir / "mpi3").string(), "-q"}));
  ASSERT_EQ(three.exit_code, 0) << three.err;
  EXPECT_EQ(read(dir / "mpi3/points.csv"), read(dir / "serial/points.csv"));
}

TEST(PlanMpi, RefinedUnderTwoRanksIsTheSerialRefinement) {
  // Every rank estimates every point and simulates its share of the fastest estimates.
  TempDir tmp;
  const fs::path dir = tmp.path();
  const auto plan = (kSource / "plans/auto-parallelism-sc21-7.5b.yaml").string();
  ASSERT_EQ(
      run_command({DPUSIM_BINARY, "plan", plan, "--refine", "3", "--out", (dir / "serial").string(), "-q"})
          .exit_code,
      0);
  const auto r = run_command(
      under_mpi(2, {DPUSIM_BINARY, "plan", plan, "--refine", "3", "--out", (dir / "mpi").string(), "-q"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read(dir / "mpi/points.csv"), read(dir / "serial/points.csv"));
}

TEST(PlanMpi, ShardUnderMpiIsBadInputAndWritesNothing) {
  TempDir tmp;
  const auto plan = plan_in(tmp, kSmallAxes);
  const fs::path out = fs::path(tmp.path()) / "out";
  const auto r =
      run_command(under_mpi(2, {DPUSIM_BINARY, "plan", plan, "--shard", "1/2", "--out", out.string()}));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("under mpirun the ranks split it: drop --shard"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// SIGTERM to mpirun (what a scheduler sends) stops every rank with its journal kept; the same job with
// --resume simulates only what is missing and publishes the uninterrupted run's files.
TEST(PlanMpi, StoppedAndResumedGivesTheUninterruptedFiles) {
  TempDir tmp;
  const fs::path dir = tmp.path();
  const auto plan =
      plan_in(tmp, "  nodes: [2, 4, 8, 16]\n  seeds: {from: 1, to: 8}\n  variants: [host-tcp, rdma-nic]\n");
  ASSERT_EQ(run_command({DPUSIM_BINARY, "plan", plan, "--out", (dir / "whole").string(), "-q"}).exit_code, 0);
  const fs::path out = dir / "stopped";
  const int pid =
      spawn_quietly(under_mpi(2, {DPUSIM_BINARY, "plan", plan, "--out", out.string(), "-q", "--jobs", "1"}));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto entries = [&] {
    std::size_t n = 0;
    if (fs::exists(out))
      for (const auto& j : journals_in(out))
        n += journal_points(j).size();
    return n;
  };
  while (entries() < 6 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (fs::exists(out / "points.csv"))
    GTEST_SKIP() << "the plan finished before it could be stopped";
  EXPECT_EQ(journals_in(out).size(), 2u);
  const auto resumed = run_command(
      under_mpi(2, {DPUSIM_BINARY, "plan", plan, "--out", out.string(), "--resume", "--jobs", "1"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_EQ(read(out / "points.csv"), read(dir / "whole/points.csv"));
  EXPECT_TRUE(journals_in(out).empty());
}
#endif

// The bundled parallelism search's claim: the published layout of SC'21 Table 1's 7.5B row is among the
// points, needs full recomputation at its micro-batch of 16, and the fastest layout found needs none of
// it and is faster by more than a fifth.
TEST(PlanCommand, TheParallelismSearchFindsTheLayoutsThatAvoidFullRecomputation) {
  TempDir tmp;
  const fs::path out = fs::path(tmp.path()) / "out";
  const auto r =
      run_command({DPUSIM_BINARY, "plan", (kSource / "plans/auto-parallelism-sc21-7.5b.yaml").string(),
                   "--out", out.string(), "-q", "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = dpusim::testing::csv_rows(out / "points.csv");
  double published = 0;
  double fastest = 1e300;
  std::string fastest_recompute;
  std::size_t feasible = 0;
  for (const auto& row : rows) {
    if (row.at("feasible") != "true")
      continue;
    ++feasible;
    const double step = std::stod(row.at("step_time_s"));
    if (row.at("tp") == "4" && row.at("pp") == "1" && row.at("virtual_stages") == "1" &&
        row.at("micro_batch") == "16") {
      published = step;
      EXPECT_EQ(row.at("recompute"), "full") << "micro-batch 16 fits only with full recomputation";
    }
    if (step < fastest) {
      fastest = step;
      fastest_recompute = row.at("recompute");
    }
  }
  EXPECT_GE(feasible, 50u);
  ASSERT_GT(published, 0) << "the published layout is not a feasible point";
  EXPECT_LT(fastest, 0.8 * published);
  EXPECT_NE(fastest_recompute, "full");
}
