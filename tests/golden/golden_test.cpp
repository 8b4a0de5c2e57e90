// Every bundled scenario is also a golden test: `dpusim compare` must reproduce its reference CSV in
// results/<scenario name>/ within a relative tolerance of 1e-6 on every number (regenerate the
// references with tools/regenerate-results.sh after a deliberate model change), and two runs with the
// same seed must write byte-identical files.
#include "tests/support/subprocess.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;
using dpusim::testing::run_command;
using dpusim::testing::TempDir;

namespace {

constexpr double kRelativeTolerance = 1e-6;

std::vector<std::string> bundled_scenarios() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(DPUSIM_SOURCE_DIR) / "scenarios/examples"))
    if (e.path().extension() == ".yaml")
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string scenario_name(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("name: ", 0) == 0)
      return line.substr(6);
  return {};
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ','))
      cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

bool is_number(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

class Golden : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST_P(Golden, CompareReproducesTheReferenceCsv) {
  const std::string file = GetParam();
  const fs::path reference = fs::path(DPUSIM_SOURCE_DIR) / "results" / scenario_name(file) / "comparison.csv";
  ASSERT_TRUE(fs::exists(reference)) << "no reference " << reference << " (run tools/regenerate-results.sh)";
  TempDir tmp;
  const auto r = run_command({DPUSIM_BINARY, "compare", file, "--out", tmp.path(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto got = parse_csv(read(fs::path(tmp.path()) / "comparison.csv"));
  const auto want = parse_csv(read(reference));
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(got.front(), want.front()) << "the CSV columns changed";
  for (std::size_t row = 1; row < want.size(); ++row) {
    ASSERT_EQ(got[row].size(), want[row].size());
    for (std::size_t col = 0; col < want[row].size(); ++col) {
      double a = 0;
      double b = 0;
      const std::string& column = want.front()[col];
      if (is_number(want[row][col], b) && is_number(got[row][col], a)) {
        EXPECT_LE(std::abs(a - b), kRelativeTolerance * std::max(std::abs(b), 1e-9))
            << column << " of " << want[row][1] << ": got " << a << ", reference " << b;
      } else {
        EXPECT_EQ(got[row][col], want[row][col]) << column;
      }
    }
  }
}

TEST_P(Golden, SameSeedGivesByteIdenticalCsv) {
  TempDir a;
  TempDir b;
  ASSERT_EQ(run_command({DPUSIM_BINARY, "compare", GetParam(), "--out", a.path(), "--quiet"}).exit_code, 0);
  ASSERT_EQ(run_command({DPUSIM_BINARY, "compare", GetParam(), "--out", b.path(), "--quiet", "--jobs", "1"})
                .exit_code,
            0);
  EXPECT_EQ(read(fs::path(a.path()) / "comparison.csv"), read(fs::path(b.path()) / "comparison.csv"));
}

INSTANTIATE_TEST_SUITE_P(Bundled, Golden, ::testing::ValuesIn(bundled_scenarios()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = fs::path(param_info.param).stem().string();
                           for (auto& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });
