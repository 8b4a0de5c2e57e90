// `dpusim traffic`: its help, its outputs, and bad traffic files and options refused (exit 2, the file,
// line and key named) with nothing written.
#include "tests/support/golden_tables.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace dpusim::testing;

namespace {

const fs::path kSource = DPUSIM_SOURCE_DIR;
const std::string kFabric = (kSource / "scenarios/fabrics/fabric-256-pfc.yaml").string();

std::string write(const fs::path& dir, const std::string& name, const std::string& text) {
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

} // namespace

TEST(TrafficCommand, HelpNamesBothFilesAndTheOutputs) {
  const auto r = run_command({DPUSIM_BINARY, "traffic", "--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("SCENARIO.yaml TRAFFIC.yaml"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("flows.csv"), std::string::npos);
  EXPECT_NE(r.out.find("collectives.csv"), std::string::npos);
}

TEST(TrafficCommand, WritesAFlowPerRowAndTheLinksTheyCrossed) {
  TempDir tmp;
  const auto traffic =
      write(tmp.path(), "t.yaml",
            "traffic:\n  - {name: incast, pattern: incast, hosts: [64, 72, 80, 88], to: 0, "
            "bytes: 4MiB}\n  - {name: late, pattern: flow, from: 8, to: 200, bytes: 1MiB, start: 2ms}\n");
  const auto out = fs::path(tmp.path()) / "out";
  const auto r = run_command({DPUSIM_BINARY, "traffic", kFabric, traffic, "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("congestion: pfc-only"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("most paused:"), std::string::npos) << r.out;
  const auto flows = csv_rows(out / "flows.csv");
  ASSERT_EQ(flows.size(), 5U);
  EXPECT_EQ(flows[0].at("group"), "incast");
  EXPECT_EQ(flows[0].at("src_node"), "8");
  EXPECT_EQ(flows[4].at("start_s"), "0.002");
  for (const auto& f : flows)
    EXPECT_GT(std::stod(f.at("fct_s")), 0);
  const auto links = csv_rows(out / "links.csv");
  ASSERT_FALSE(links.empty());
  EXPECT_EQ(links[0].at("link"), "leaf0->n0.nic0");
  EXPECT_FALSE(links[0].at("pause_fraction").empty());
  // No collective group: the collectives' table is its header alone, so no earlier run's is left there.
  ASSERT_TRUE(fs::exists(out / "collectives.csv"));
  EXPECT_TRUE(csv_rows(out / "collectives.csv").empty());
}

TEST(TrafficCommand, BadInputIsRefusedWithNothingWritten) {
  TempDir tmp;
  const auto good =
      write(tmp.path(), "good.yaml", "traffic:\n  - {pattern: flow, from: 0, to: 64, bytes: 1MiB}\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{kFabric}, "missing the traffic file"},
      {{kFabric,
        write(tmp.path(), "host.yaml", "traffic:\n  - {pattern: flow, from: 0, to: 256, bytes: 1MiB}\n")},
       "host.yaml:2:"},
      {{kFabric,
        write(tmp.path(), "size.yaml", "traffic:\n  - {pattern: flow, from: 0, to: 1, bytes: -4KB}\n")},
       "traffic[0].bytes: must be greater than zero"},
      {{kFabric, write(tmp.path(), "empty.yaml", "")}, "empty.yaml"},
      {{kFabric, (fs::path(tmp.path()) / "absent.yaml").string()}, "absent.yaml"},
      {{kFabric, good, "--variant", "no-such-variant"}, "no-such-variant"},
      {{kFabric, good, "--seed", "x"}, "seed"},
      {{kFabric, write(tmp.path(), "ring.yaml",
                       "traffic:\n  - {pattern: all_reduce, hosts: [0, 8], bytes: 1MiB, algorithm: mesh}\n")},
       "ring.yaml:2:"},
  };
  for (const auto& [args, expected] : cases) {
    std::vector<std::string> argv = {DPUSIM_BINARY, "traffic"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto out = fs::path(tmp.path()) / "out";
    argv.insert(argv.end(), {"--out", out.string()});
    const auto r = run_command(argv);
    EXPECT_EQ(r.exit_code, 2) << expected << "\n" << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << expected;
  }
}

TEST(TrafficCommand, TheBundledIncastWithAVictimMakesItsClaim) {
  // scenarios/traffic/incast-victim.yaml (README): 16 senders onto one port under PFC alone are each
  // served a sixteenth and paused for the rest, no slower than max-min; the victim beside them keeps its
  // NIC's rate.
  TempDir tmp;
  const auto out = fs::path(tmp.path()) / "out";
  const auto r = run_command({DPUSIM_BINARY, "traffic", kFabric,
                              (kSource / "scenarios/traffic/incast-victim.yaml").string(), "--out",
                              out.string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  double victim_gbps = 0;
  for (const auto& f : csv_rows(out / "flows.csv")) {
    EXPECT_NEAR(std::stod(f.at("fct_s")) / std::stod(f.at("uncongested_fct_s")), 1.0, 1e-3) << f.at("group");
    if (f.at("group") == "victim")
      victim_gbps = std::stod(f.at("rate_gbps"));
  }
  EXPECT_GT(victim_gbps, 0.9 * 400);
  double paused = 0;
  for (const auto& l : csv_rows(out / "links.csv"))
    if (!l.at("pause_fraction").empty())
      paused = std::max(paused, std::stod(l.at("pause_fraction")));
  EXPECT_NEAR(paused, 15.0 / 16, 0.05);
}

TEST(TrafficCommand, TheBundledRingBesideTenantsMakesItsClaim) {
  // scenarios/traffic/ring-beside-tenants.yaml: other tenants' flows that share up-links with the ring's
  // hops slow the whole all-reduce (its slowest hop sets its pace), by their share of those links, not by
  // PFC's pauses; without them it takes what it takes alone.
  TempDir tmp;
  const auto file = kSource / "scenarios/traffic/ring-beside-tenants.yaml";
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto alone = write(tmp.path(), "alone.yaml", text.substr(0, text.find("  - name: tenants")));
  double time_s[2] = {0, 0};
  const std::string files[2] = {file.string(), alone};
  for (int i = 0; i < 2; ++i) {
    const auto out = fs::path(tmp.path()) / ("out" + std::to_string(i));
    const auto r =
        run_command({DPUSIM_BINARY, "traffic", kFabric, files[i], "--out", out.string(), "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto rows = csv_rows(out / "collectives.csv");
    ASSERT_EQ(rows.size(), 1U);
    EXPECT_EQ(rows[0].at("ranks"), "32");
    EXPECT_EQ(rows[0].at("nodes"), "32");
    time_s[i] = std::stod(rows[0].at("time_s"));
    EXPECT_NEAR(time_s[i] / std::stod(rows[0].at("uncongested_time_s")), 1.0, 1e-3);
  }
  EXPECT_GT(time_s[0] / time_s[1], 1.4);
  EXPECT_LT(time_s[0] / time_s[1], 2.0);
}
