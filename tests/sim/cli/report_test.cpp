// `dpusim report DIR`: bad input writes nothing, a missing interpreter or matplotlib says what to
// install, the renderer is bounded in time, and a comparison's CSV becomes a page with its figures.
// What the figures plot is checked by the golden tests and the page in a browser (tests/report/).
#include "tests/support/subprocess.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using dpusim::testing::run_command;
using dpusim::testing::TempDir;

namespace {

const fs::path kSource = DPUSIM_SOURCE_DIR;

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

bool empty_dir(const fs::path& dir) {
  return fs::is_empty(dir);
}

/// A directory holding the quickstart's reference comparison, as `dpusim compare` leaves it.
fs::path comparison_dir(const TempDir& tmp) {
  const fs::path dir = fs::path(tmp.path()) / "run";
  fs::create_directories(dir);
  fs::copy_file(kSource / "results/gpt3-13b-64xh100/comparison.csv", dir / "comparison.csv");
  return dir;
}

} // namespace

TEST(Report, AMissingDirectoryIsBadInput) {
  TempDir tmp;
  const auto r = run_command({DPUSIM_BINARY, "report", tmp.path() + "/nowhere"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is not a directory"), std::string::npos) << r.err;
  EXPECT_TRUE(empty_dir(tmp.path()));
}

TEST(Report, ADirectoryWithoutOutputsIsBadInputAndWritesNothing) {
  TempDir tmp;
  std::ofstream(tmp.path() + "/notes.txt") << "not an output of dpusim\n";
  const auto r = run_command({DPUSIM_BINARY, "report", tmp.path()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("comparison.csv"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path() + "/report.html"));
  EXPECT_FALSE(fs::exists(tmp.path() + "/report-figures"));
}

TEST(Report, UsageErrorsAreBadInput) {
  TempDir tmp;
  const auto dir = comparison_dir(tmp);
  EXPECT_EQ(run_command({DPUSIM_BINARY, "report"}).exit_code, 2);
  EXPECT_EQ(run_command({DPUSIM_BINARY, "report", dir.string(), "--no-such-option"}).exit_code, 2);
  EXPECT_EQ(run_command({DPUSIM_BINARY, "report", dir.string(), "--timeout", "0"}).exit_code, 2);
  EXPECT_EQ(run_command({DPUSIM_BINARY, "report", dir.string(), "--timeout", "1e300"}).exit_code, 2);
  EXPECT_EQ(run_command({DPUSIM_BINARY, "report", dir.string(), "--timeout", "nan"}).exit_code, 2);
  // --out must name a file, not a directory.
  EXPECT_EQ(run_command({DPUSIM_BINARY, "report", dir.string(), "--out", tmp.path()}).exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "report.html"));
}

TEST(Report, HelpExplainsTheCommand) {
  const auto r = run_command({DPUSIM_BINARY, "report", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("self-contained HTML"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("python3-matplotlib"), std::string::npos) << r.out;
  const auto top = run_command({DPUSIM_BINARY, "--help"});
  EXPECT_NE(top.out.find("report DIR"), std::string::npos) << top.out;
  for (const char* command : {"run", "compare", "plan"})
    EXPECT_NE(run_command({DPUSIM_BINARY, command, "--help"}).out.find("--report"), std::string::npos)
        << command;
}

TEST(Report, WithoutAnInterpreterSaysWhatToInstall) {
  TempDir tmp;
  const auto dir = comparison_dir(tmp);
  ::setenv("DPUSIM_PYTHON", (fs::path(tmp.path()) / "no-such-python").c_str(), 1);
  const auto r = run_command({DPUSIM_BINARY, "report", dir.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("python3-matplotlib"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "report.html"));
}

TEST(Report, WithoutMatplotlibSaysWhatToInstall) {
  TempDir tmp;
  const auto dir = comparison_dir(tmp);
  // A matplotlib that cannot be imported, ahead of any installed one.
  const fs::path fake = fs::path(tmp.path()) / "site" / "matplotlib";
  fs::create_directories(fake);
  std::ofstream(fake / "__init__.py") << "raise ImportError('planted by the test')\n";
  ::setenv("PYTHONPATH", (fs::path(tmp.path()) / "site").c_str(), 1);
  const auto r = run_command({DPUSIM_BINARY, "report", dir.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("has no matplotlib"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "report.html"));
  EXPECT_FALSE(fs::exists(dir / "report-figures"));
}

TEST(Report, TheRendererIsBoundedInTime) {
  TempDir tmp;
  const auto dir = comparison_dir(tmp);
  const auto r = run_command({DPUSIM_BINARY, "report", dir.string(), "--timeout", "0.01"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("ran out of time"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "report.html"));
}

TEST(Report, AComparisonBecomesAPageWithItsFigures) {
  TempDir tmp;
  const auto dir = comparison_dir(tmp);
  const auto r = run_command({DPUSIM_BINARY, "report", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = read(dir / "report.html");
  // Self-contained: every figure inline, no script and nothing to fetch.
  EXPECT_EQ(count(page, "<figure "), 3U);
  EXPECT_EQ(count(page, "<svg "), 3U);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  for (const char* variant : {"host-tcp", "rdma-nic", "dpu"})
    EXPECT_NE(page.find(variant), std::string::npos) << variant;
  // Without run-info.json the page says the conditions were not recorded rather than omitting them.
  EXPECT_NE(page.find("run-info.json is missing"), std::string::npos);
  for (const char* figure : {"step-breakdown", "cores-by-function", "speedup"})
    for (const char* ext : {".svg", ".png"})
      EXPECT_GT(fs::file_size(dir / "report-figures" / (std::string(figure) + ext)), 1000U) << figure << ext;
  EXPECT_TRUE(fs::is_regular_file(dir / "report-figures/data.json"));
  // A figure left by an earlier report that this one does not draw is removed.
  std::ofstream(dir / "report-figures/step-distribution.svg") << "<svg/>";
  const auto again =
      run_command({DPUSIM_BINARY, "report", dir.string(), "--out", (dir / "report.html").string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_FALSE(fs::exists(dir / "report-figures/step-distribution.svg"));
  EXPECT_EQ(read(dir / "report.html"), page);
}

TEST(Report, OutNamesThePageAndItsFiguresFolder) {
  TempDir tmp;
  const auto dir = comparison_dir(tmp);
  const fs::path html = fs::path(tmp.path()) / "slides" / "gpt3.html";
  const auto r = run_command({DPUSIM_BINARY, "report", dir.string(), "--out", html.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(html));
  EXPECT_TRUE(fs::is_regular_file(html.parent_path() / "gpt3-figures/speedup.svg"));
  EXPECT_NE(read(html).find("gpt3-figures/speedup.png"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "report.html"));
}

TEST(Report, RunRecordsItsInputsAndNotesForTheReport) {
  TempDir tmp;
  const auto r = run_command({DPUSIM_BINARY, "run", (kSource / "scenarios/examples/quickstart.yaml").string(),
                              "--out", tmp.path(), "--quiet", "--report"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string info = read(tmp.path() + "/run-info.json");
  EXPECT_NE(info.find("\"command\": \"run\""), std::string::npos) << info;
  EXPECT_NE(info.find("\"name\": \"gpt3-13b-64xh100\""), std::string::npos) << info;
  EXPECT_NE(info.find("TP 8 x PP 1 x DP 8"), std::string::npos) << info;
  EXPECT_NE(info.find("\"notes\": ["), std::string::npos) << info;
  const std::string page = read(tmp.path() + "/report.html");
  EXPECT_NE(page.find("TP 8 x PP 1 x DP 8"), std::string::npos);
  EXPECT_EQ(count(page, "<svg "), 2U); // one variant: no speed-up
}

TEST(Report, FilesTheLatestRunDidNotWriteAreNotDrawn) {
  TempDir tmp;
  const auto dir = comparison_dir(tmp);
  // The reference run-info.json lists comparison.csv alone; files older than it beside it are an
  // earlier run's.
  std::ofstream(dir / "samples.csv") << "sample,scenario,variant,step_time_s\n0,x,host-tcp,1\n";
  std::ofstream(dir / "distribution.csv") << "variant,samples,p50_step_s,p99_step_s\nhost-tcp,1,1,1\n";
  std::ofstream(dir / "attribution.csv") << "scenario,variant,function,alone_change_s,last_change_s\n";
  fs::copy_file(kSource / "results/gpt3-13b-64xh100/run-info.json", dir / "run-info.json");
  const auto later = fs::last_write_time(dir / "samples.csv") + std::chrono::seconds(10);
  fs::last_write_time(dir / "run-info.json", later);
  const auto r = run_command({DPUSIM_BINARY, "report", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = read(dir / "report.html");
  EXPECT_EQ(count(page, "<figure "), 3U);
  EXPECT_EQ(page.find("fig-step-distribution"), std::string::npos);
  EXPECT_EQ(page.find("fig-attribution"), std::string::npos);
  EXPECT_NE(page.find("Not drawn: samples.csv"), std::string::npos);
  EXPECT_NE(page.find("Not drawn: attribution.csv"), std::string::npos);
  // Its conditions are the recorded run's.
  EXPECT_NE(page.find("8 x dgx-h100 (64 GPUs)"), std::string::npos);
}

TEST(Report, APlansPointsBecomeItsFigures) {
  TempDir tmp;
  const fs::path dir = fs::path(tmp.path()) / "plan";
  fs::create_directories(dir);
  fs::copy_file(kSource / "results/plans/gpt3-13b-nodes-offload/points.csv", dir / "points.csv");
  const auto r = run_command({DPUSIM_BINARY, "report", dir.string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = read(dir / "report.html");
  EXPECT_EQ(count(page, "<figure "), 2U);
  EXPECT_NE(page.find("fig-plan-time-to-train"), std::string::npos);
  EXPECT_NE(page.find("fig-plan-pareto"), std::string::npos);
  // The conditions come from points.csv: its axes, and why points were infeasible.
  EXPECT_NE(page.find("axis: nodes"), std::string::npos);
  EXPECT_NE(page.find("infeasible ("), std::string::npos);
  // Without plan-info.json the page says what it cannot show.
  EXPECT_NE(page.find("plan-info.json is missing"), std::string::npos);
  // Another plan's plan-info.json (9 points, not 45) is not taken for this one's.
  fs::copy_file(kSource / "results/plans/dpu-break-even-tenant/plan-info.json", dir / "plan-info.json");
  ASSERT_EQ(run_command({DPUSIM_BINARY, "report", dir.string(), "--quiet"}).exit_code, 0);
  const std::string other = read(dir / "report.html");
  EXPECT_NE(other.find("Not drawn: plan-info.json (of another plan"), std::string::npos);
  EXPECT_EQ(other.find("dpu-break-even-tenant"), std::string::npos);
}

TEST(Report, APlansPageIsTitledByThePlanAndShowsEveryStatedInput) {
  // A plan written into "out": the page is the plan's, with its prices, PUE, restart time and deadline.
  TempDir tmp;
  const fs::path plan = fs::path(tmp.path()) / "p.yaml";
  std::ofstream(plan) << "name: my-plan\ndescription: Llama 3 70B on 128 nodes\nscenario: "
                      << (kSource / "tests/sim/cli/data/plan-70b/base.yaml").string()
                      << "\ntrain_tokens: 2T\nrefine: 0\naxes:\n  variants: [rdma-nic]\n"
                         "constraints: {deadline: 30d}\ngoodput: {restart: 20min, rates: {node: 2.5e-4/d}}\n"
                         "power: {pue: 1.3, energy_price: 0.09USD/kWh, switch: 1.5kW}\n"
                         "costs: {node: 280kUSD, nic: 1800USD, dpu: 3000USD, switch: 45kUSD, link: 900USD, "
                         "life: 4y}\n";
  const fs::path out = fs::path(tmp.path()) / "out";
  const auto p = run_command({DPUSIM_BINARY, "plan", plan.string(), "--out", out.string(), "--quiet"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const auto r = run_command({DPUSIM_BINARY, "report", out.string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = read(out / "report.html");
  EXPECT_NE(page.find("<title>dpusim report: my-plan</title>"), std::string::npos);
  EXPECT_EQ(page.find("<h1>out</h1>"), std::string::npos);
  EXPECT_NE(page.find("Llama 3 70B on 128 nodes"), std::string::npos);
  for (const char* stated : {"restart 1200 s", "node interruptions", "PUE 1.3", "energy 0.09 USD/kWh",
                             "switches at 1500 W each", "node 280000 USD", "DPU 3000 USD", "link 900 USD",
                             "1460 days of life", "constraint: deadline", "30 days"})
    EXPECT_NE(page.find(stated), std::string::npos) << stated;
  EXPECT_EQ(page.find("plan-info.json is missing"), std::string::npos);
}
