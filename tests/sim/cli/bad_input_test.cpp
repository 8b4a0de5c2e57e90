// Every malformed scenario under tests/bad_input/ must be rejected by the command line with the
// messages its "# expect:" lines give, exit status 2, and no output written.
#include "tests/support/golden_tables.hpp"
#include "tests/support/sanitized.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using dpusim::testing::expectations;
using dpusim::testing::run_command;
using dpusim::testing::TempDir;

namespace {

std::vector<std::string> bad_inputs() {
  return dpusim::testing::bundled_inputs("tests/bad_input");
}

class BadInput : public ::testing::TestWithParam<std::string> {};

// Each file is rejected within a few seconds and a bounded memory (issue 18: a one-byte file once took
// 4 GiB); sanitizers multiply both. Measured: at most 0.03 s and 34 MiB (0.12 s and 118 MiB with ASan).
using dpusim::testing::kSanitized;
constexpr double kMaxSeconds = kSanitized ? 15.0 : 3.0;
constexpr long kMaxRssKib = kSanitized ? 1024L * 1024 : 256L * 1024;

} // namespace

TEST(BadInputSet, HasAtLeastTwelveCases) {
  EXPECT_GE(bad_inputs().size(), 12u);
}

TEST_P(BadInput, IsRejectedWithItsMessageAndWritesNothing) {
  const std::string file = GetParam();
  const auto expects = expectations(file);
  ASSERT_FALSE(expects.empty()) << file << " has no \"# expect:\" line";
  for (const char* command : {"run", "compare"}) {
    TempDir tmp;
    const std::string out = tmp.path() + "/out";
    const auto r = run_command({DPUSIM_BINARY, command, file, "--out", out, "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << command << " " << file << "\n" << r.err;
    EXPECT_LT(r.seconds, kMaxSeconds) << command << " took " << r.seconds << " s to reject " << file;
    EXPECT_LT(r.max_rss_kib, kMaxRssKib) << command << " took " << r.max_rss_kib << " KiB to reject " << file;
    EXPECT_EQ(r.err.rfind(file + ":", 0), 0u) << "the message must start with the file name: " << r.err;
    for (const auto& e : expects)
      EXPECT_NE(r.err.find(e), std::string::npos) << "expected \"" << e << "\" in:\n" << r.err;
    EXPECT_FALSE(fs::exists(out)) << command << " wrote output for a rejected scenario";
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, BadInput, ::testing::ValuesIn(bad_inputs()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = fs::path(param_info.param).stem().string();
                           for (auto& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

TEST(CommandLine, UsageErrorsExitWithTwo) {
  EXPECT_EQ(run_command({DPUSIM_BINARY}).exit_code, 2);
  EXPECT_EQ(run_command({DPUSIM_BINARY, "frobnicate"}).exit_code, 2);
  EXPECT_EQ(run_command({DPUSIM_BINARY, "run"}).exit_code, 2);
  EXPECT_EQ(run_command({DPUSIM_BINARY, "run", "--no-such-option", "x.yaml"}).exit_code, 2);
  const auto missing = run_command({DPUSIM_BINARY, "run", "/nonexistent/scenario.yaml"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot open the file"), std::string::npos) << missing.err;
  const auto variant = run_command({DPUSIM_BINARY, "compare",
                                    std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml",
                                    "--variants", "rdma", "--out", "/nonexistent-dir/x"});
  EXPECT_EQ(variant.exit_code, 2);
  EXPECT_NE(variant.err.find("did you mean \"rdma-nic\""), std::string::npos) << variant.err;
}

TEST(CommandLine, HelpAndVersionSucceed) {
  for (auto args : std::vector<std::vector<std::string>>{{"--help"},
                                                         {"--version"},
                                                         {"run", "--help"},
                                                         {"compare", "--help"},
                                                         {"schema"},
                                                         {"catalog"},
                                                         {"variants"}}) {
    args.insert(args.begin(), DPUSIM_BINARY);
    const auto r = run_command(args);
    EXPECT_EQ(r.exit_code, 0) << args[1];
    EXPECT_FALSE(r.out.empty()) << args[1];
  }
}

TEST(CommandLine, AnEmptyOutIsBadInput) {
  const std::string quickstart = std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml";
  for (const char* command : {"run", "compare"}) {
    const auto r = run_command({DPUSIM_BINARY, command, quickstart, "--out", ""});
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_NE(r.err.find("--out needs a directory"), std::string::npos) << r.err;
  }
}

TEST(CommandLine, CompareRunsAVariantNamedTwiceOnce) {
  TempDir tmp;
  const auto r = run_command({DPUSIM_BINARY, "compare",
                              std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml",
                              "--variants", "rdma-nic,host-tcp,rdma-nic,rdma-nic", "--out", tmp.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--variants names rdma-nic 3 times; it runs once"), std::string::npos) << r.err;
  std::ifstream csv(tmp.path() + "/comparison.csv");
  std::vector<std::string> variants;
  std::string line;
  std::getline(csv, line); // the header
  while (std::getline(csv, line)) {
    const auto first = line.find(',');
    variants.push_back(line.substr(first + 1, line.find(',', first + 1) - first - 1));
  }
  EXPECT_EQ(variants, (std::vector<std::string>{"rdma-nic", "host-tcp"}));
}

TEST(CommandLine, CompareRefusesMoreVariantsThanItsLimit) {
  std::string specs = "rdma-nic";
  for (int i = 0; i < 1000; ++i)
    specs += ",v" + std::to_string(i);
  const auto r = run_command({DPUSIM_BINARY, "compare",
                              std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml",
                              "--variants", specs, "--out", "/nonexistent-dir/x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--variants names 1001 variants, the baseline included; at most 1000"),
            std::string::npos)
      << r.err;
}

// A mistake in validate's targets file is found before any simulation runs, with its line and key, and
// nothing is written.
TEST(CommandLine, ValidateRefusesABadTargetsFileBeforeSimulating) {
  TempDir tmp;
  const fs::path dir = tmp.path() + "/validation";
  fs::create_directories(dir);
  fs::copy_file(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/validation/readme2020-1b-1gpus.yaml",
                dir / "readme2020-1b-1gpus.yaml");
  for (const auto& [targets, message] : std::vector<std::pair<std::string, std::string>>{
           {"megatron-readme-2020: {median: 0.05, max: 0.12}\nmegatron-readme: {median: 0.05, max: 0.1}\n",
            "targets.yaml:2:18: error: megatron-readme: no validation scenario of this directory belongs to "
            "a table named \"megatron-readme\"; the tables are: megatron-readme-2020"},
           {"megatron-readme-2020: {median: 0.05, max: 0.12, known_misses: {readme2020-1b: small}}\n",
            "no validation scenario of this directory is named \"readme2020-1b\""},
           {"megatron-readme-2020: {median: 0.5, max: 0.1}\n", "below the median"},
           {",\n", "targets.yaml:1"}}) {
    std::ofstream(dir / "targets.yaml") << targets;
    const std::string out = tmp.path() + "/out";
    const auto r = run_command({DPUSIM_BINARY, "validate", dir.string(), "--check", "--out", out, "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << targets << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << "expected \"" << message << "\" in:\n" << r.err;
    EXPECT_LT(r.seconds, kMaxSeconds) << r.err;
    EXPECT_FALSE(fs::exists(out)) << "validate wrote output for a bad targets file";
  }
}
