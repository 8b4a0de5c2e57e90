// Ordinary use never overwrites the reference outputs in results/: without --out, `dpusim run` and
// `dpusim compare` write under out/<scenario name>/ of the working directory and `dpusim validate` under
// out/validation/; of the scripts in tools/, only the regeneration scripts write results/.
#include "tests/support/subprocess.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using dpusim::testing::run_command;
using dpusim::testing::TempDir;

namespace {

/// Makes a directory the working directory for the object's lifetime (ctest runs each test case in a
/// process of its own).
class WorkingDirectory {
public:
  explicit WorkingDirectory(const fs::path& dir) : previous_(fs::current_path()) { fs::current_path(dir); }
  ~WorkingDirectory() {
    std::error_code ec;
    fs::current_path(previous_, ec);
  }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

private:
  fs::path previous_;
};

const fs::path kSource = DPUSIM_SOURCE_DIR;
const std::string kQuickstart = (kSource / "scenarios/examples/quickstart.yaml").string();

std::string scenario_name(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("name: ", 0) == 0)
      return line.substr(6);
  return {};
}

/// Every file under dir, relative to it, sorted.
std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (!e.is_directory())
      files.push_back(fs::relative(e.path(), dir).string());
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace

TEST(DefaultOutput, CompareWithoutOutWritesUnderOutOfTheWorkingDirectory) {
  const std::string name = scenario_name(kQuickstart);
  ASSERT_FALSE(name.empty());
  TempDir tmp;
  const WorkingDirectory cwd(tmp.path());
  const auto r = run_command({DPUSIM_BINARY, "compare", kQuickstart, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(files_under(tmp.path()),
            (std::vector<std::string>{"out/" + name + "/comparison.csv", "out/" + name + "/run-info.json"}));
  EXPECT_FALSE(fs::exists(fs::path(tmp.path()) / "results")) << "compare wrote under results/";
}

TEST(DefaultOutput, RunWithoutOutWritesUnderOutOfTheWorkingDirectory) {
  const std::string name = scenario_name(kQuickstart);
  TempDir tmp;
  const WorkingDirectory cwd(tmp.path());
  const auto r = run_command({DPUSIM_BINARY, "run", kQuickstart, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(files_under(tmp.path()),
            (std::vector<std::string>{"out/" + name + "/run-info.json", "out/" + name + "/run.csv"}));
}

TEST(DefaultOutput, ValidateWithoutOutWritesOutValidation) {
  // One single-GPU published run (its GPU profile comes from the catalog).
  TempDir tmp;
  const fs::path dir = fs::path(tmp.path()) / "scenarios";
  fs::create_directories(dir);
  fs::copy_file(kSource / "scenarios/validation/readme2020-1b-1gpus.yaml", dir / "readme2020-1b-1gpus.yaml");
  const WorkingDirectory cwd(tmp.path());
  const auto r = run_command({DPUSIM_BINARY, "validate", "scenarios", "--quiet", "--jobs", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(fs::path(tmp.path()) / "out/validation/validation.csv"));
  EXPECT_FALSE(fs::exists(fs::path(tmp.path()) / "results")) << "validate wrote under results/";
}

TEST(DefaultOutput, HelpNamesTheDefault) {
  for (const char* command : {"run", "compare"}) {
    const auto r = run_command({DPUSIM_BINARY, command, "--help"});
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_NE(r.out.find("default: out/<scenario name>"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("results/"), std::string::npos) << r.out;
  }
  const auto r = run_command({DPUSIM_BINARY, "validate", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("default: out/validation"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("results/"), std::string::npos) << r.out;
}

TEST(ToolScripts, OnlyTheRegenerationScriptsWriteResults) {
  const std::set<std::string> regenerators = {"regenerate-results.sh", "regenerate-validation.sh"};
  std::set<std::string> seen;
  std::string offenders;
  for (const auto& e : fs::directory_iterator(kSource / "tools")) {
    if (e.path().extension() != ".sh")
      continue;
    const std::string script = e.path().filename().string();
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    if (regenerators.count(script) != 0) {
      seen.insert(script);
      // They name the reference folder explicitly instead of relying on a default.
      EXPECT_TRUE(text.str().find("--out \"results/") != std::string::npos ||
                  text.str().find("--out results/") != std::string::npos)
          << script << " must pass --out results/... explicitly";
      continue;
    }
    std::string line;
    for (int number = 1; std::getline(text, line); ++number)
      if (line.find("results/") != std::string::npos)
        offenders += "tools/" + script + ":" + std::to_string(number) + ": " + line + "\n";
  }
  EXPECT_EQ(seen, regenerators);
  EXPECT_TRUE(offenders.empty()) << "only the regeneration scripts may write results/:\n" << offenders;
}

TEST(DefaultOutput, RunAndCompareSayTheModelsSizeAndTheGpuMemoryItTakes) {
  // GPT-3 13B (12.85 B parameters, its embeddings counted) on TP 8: each GPU holds 1/8 of the weights
  // (bf16: 2 bytes a parameter), the gradients (4) and Adam's fp32 states (12), and its activations.
  TempDir tmp;
  for (const char* command : {"compare", "run"}) {
    const auto r = run_command({DPUSIM_BINARY, command, kQuickstart, "--out", tmp.path() + "/" + command});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\nmodel: 12.85 B parameters; GPU memory: "), std::string::npos) << command << r.out;
    EXPECT_NE(r.out.find(" of 79.3 GiB on pipeline stage 0 (weights 3.0, gradients 6.0, optimizer 18.0, "),
              std::string::npos)
        << command << r.out;
    // What the host core figures leave out is said beside them.
    EXPECT_NE(r.out.find("the rest of each training process on the host, its Python loop and data loader's "
                         "main thread, is left out"),
              std::string::npos)
        << command << r.out;
  }
}
