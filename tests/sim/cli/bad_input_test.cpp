// Every malformed scenario under tests/bad_input/ must be rejected by the command line with the
// messages its "# expect:" lines give, exit status 2, and no output written.
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using dpusim::testing::run_command;
using dpusim::testing::TempDir;

namespace {

std::vector<std::string> bad_inputs() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(DPUSIM_SOURCE_DIR) / "tests/bad_input"))
    if (e.path().extension() == ".yaml")
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::string> expectations(const std::string& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  std::string line;
  const std::string tag = "# expect: ";
  while (std::getline(in, line))
    if (line.rfind(tag, 0) == 0)
      out.push_back(line.substr(tag.size()));
  return out;
}

class BadInput : public ::testing::TestWithParam<std::string> {};

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
