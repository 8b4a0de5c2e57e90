// Every bundled plan (plans/*.yaml) is a golden test: `dpusim plan` must reproduce its reference
// results/plans/<plan name>/points.csv within a relative tolerance of 1e-6 on every number and exactly
// on every other cell (regenerate with tools/regenerate-results.sh after a deliberate model change).
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

std::vector<std::string> bundled_plans() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(DPUSIM_SOURCE_DIR) / "plans"))
    if (e.path().extension() == ".yaml")
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string plan_name(const std::string& file) {
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

/// CSV with RFC 4180 quotes (a reason may hold commas and quotes).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted && ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
      cell += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (!quoted && ch == ',') {
      rows.back().push_back(std::move(cell));
      cell.clear();
    } else if (!quoted && ch == '\n') {
      rows.back().push_back(std::move(cell));
      cell.clear();
      rows.emplace_back();
    } else {
      cell += ch;
    }
  }
  if (rows.back().empty())
    rows.pop_back();
  return rows;
}

bool is_number(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

class PlanGolden : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST(PlanGoldenSet, HasABundledPlan) {
  EXPECT_FALSE(bundled_plans().empty());
}

TEST_P(PlanGolden, PlanReproducesTheReferencePoints) {
  const std::string file = GetParam();
  const fs::path reference = fs::path(DPUSIM_SOURCE_DIR) / "results/plans" / plan_name(file) / "points.csv";
  ASSERT_TRUE(fs::exists(reference)) << "no reference " << reference << " (run tools/regenerate-results.sh)";
  TempDir tmp;
  const auto r = run_command({DPUSIM_BINARY, "plan", file, "--out", tmp.path(), "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("what offload changes"), std::string::npos) << r.out;
  const auto got = parse_csv(read(fs::path(tmp.path()) / "points.csv"));
  const auto want = parse_csv(read(reference));
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(got.front(), want.front()) << "the CSV columns changed";
  for (std::size_t row = 1; row < want.size(); ++row) {
    ASSERT_EQ(got[row].size(), want[row].size()) << "row " << row;
    for (std::size_t col = 0; col < want[row].size(); ++col) {
      double a = 0;
      double b = 0;
      const std::string& column = want.front()[col];
      if (is_number(want[row][col], b) && is_number(got[row][col], a))
        EXPECT_LE(std::abs(a - b), kRelativeTolerance * std::max(std::abs(b), 1e-9))
            << column << " of point " << want[row][0] << ": got " << a << ", reference " << b;
      else
        EXPECT_EQ(got[row][col], want[row][col]) << column << " of point " << want[row][0];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Bundled, PlanGolden, ::testing::ValuesIn(bundled_plans()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = fs::path(param_info.param).stem().string();
                           for (auto& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });
