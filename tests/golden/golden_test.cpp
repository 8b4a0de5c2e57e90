// Every bundled scenario is also a golden test: `dpusim compare` must reproduce its reference CSV in
// results/<scenario name>/ within a relative tolerance of 1e-6 on every number (regenerate the
// references with tools/regenerate-results.sh after a deliberate model change), and two runs with the
// same seed must write byte-identical files.
#include "tests/support/golden_tables.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace dpusim::testing;

namespace {

class Golden : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST_P(Golden, CompareReproducesTheReferenceCsv) {
  const std::string file = GetParam();
  const fs::path reference = fs::path(DPUSIM_SOURCE_DIR) / "results" / input_name(file) / "comparison.csv";
  ASSERT_TRUE(fs::exists(reference)) << "no reference " << reference << " (run tools/regenerate-results.sh)";
  TempDir tmp;
  const auto r = run_command({DPUSIM_BINARY, "compare", file, "--out", tmp.path(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_same_table(fs::path(tmp.path()) / "comparison.csv", reference, 1);
}

TEST_P(Golden, SameSeedGivesByteIdenticalCsv) {
  TempDir a;
  TempDir b;
  ASSERT_EQ(run_command({DPUSIM_BINARY, "compare", GetParam(), "--out", a.path(), "--quiet"}).exit_code, 0);
  ASSERT_EQ(run_command({DPUSIM_BINARY, "compare", GetParam(), "--out", b.path(), "--quiet", "--jobs", "1"})
                .exit_code,
            0);
  EXPECT_EQ(read_text(fs::path(a.path()) / "comparison.csv"),
            read_text(fs::path(b.path()) / "comparison.csv"));
}

INSTANTIATE_TEST_SUITE_P(Bundled, Golden, ::testing::ValuesIn(bundled_inputs("scenarios/examples")),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return test_name_of(param_info.param);
                         });
