// Every bundled traffic file (scenarios/traffic/, each on the bundled test fabric
// scenarios/fabrics/fabric-256-pfc.yaml) is a golden test: `dpusim traffic` must reproduce its flows.csv,
// links.csv and collectives.csv in results/traffic/<file stem>/ within a relative
// 1e-6 (tools/regenerate-results.sh writes them), and two runs must write byte-identical files.
#include "tests/support/golden_tables.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace dpusim::testing;

namespace {

const std::string kFabric = (fs::path(DPUSIM_SOURCE_DIR) / "scenarios/fabrics/fabric-256-pfc.yaml").string();

class TrafficGolden : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST_P(TrafficGolden, ReproducesTheReferenceFlowsAndLinks) {
  const fs::path reference = fs::path(DPUSIM_SOURCE_DIR) / "results/traffic" / fs::path(GetParam()).stem();
  ASSERT_TRUE(fs::exists(reference / "flows.csv"))
      << "no reference in " << reference << " (run tools/regenerate-results.sh)";
  TempDir a;
  TempDir b;
  const auto r = run_command({DPUSIM_BINARY, "traffic", kFabric, GetParam(), "--out", a.path(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_same_table(fs::path(a.path()) / "flows.csv", reference / "flows.csv");
  expect_same_table(fs::path(a.path()) / "links.csv", reference / "links.csv");
  expect_same_table(fs::path(a.path()) / "collectives.csv", reference / "collectives.csv");
  ASSERT_EQ(
      run_command({DPUSIM_BINARY, "traffic", kFabric, GetParam(), "--out", b.path(), "--quiet"}).exit_code,
      0);
  for (const char* file : {"flows.csv", "links.csv", "collectives.csv"})
    EXPECT_EQ(read_text(fs::path(a.path()) / file), read_text(fs::path(b.path()) / file)) << file;
}

INSTANTIATE_TEST_SUITE_P(Bundled, TrafficGolden, ::testing::ValuesIn(bundled_inputs("scenarios/traffic")),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return test_name_of(param_info.param);
                         });
