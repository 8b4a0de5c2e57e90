// Every profile shipped under hw_calib/profiles/ loads with the simulator's strict reader, and the
// default (datasheet) profiles cite their sources.
#include "models/calibration/parameters.hpp"
#include "models/calibration/profile.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>

namespace fs = std::filesystem;
using namespace dpusim::calibration;

TEST(calib_ShippedProfiles, AllLoadAndCiteSources) {
  const fs::path root = fs::path(DPUSIM_SOURCE_DIR) / "hw_calib/profiles";
  int count = 0, defaults = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".yaml")
      continue;
    SCOPED_TRACE(e.path().string());
    Profile p;
    ASSERT_NO_THROW(p = load_profile(e.path().string()));
    ++count;
    EXPECT_FALSE(p.parameters.empty());
    if (e.path().parent_path().filename() == "defaults") {
      ++defaults;
      for (const auto& param : p.parameters) {
        EXPECT_EQ(param.provenance, Provenance::datasheet) << param.key;
        EXPECT_FALSE(param.source.empty()) << param.key;
      }
    } else {
      // Measured profiles ship their raw data next to them.
      for (const auto& param : p.parameters) {
        if (param.samples.empty())
          continue;
        const std::string file = param.samples.substr(0, param.samples.find('#'));
        EXPECT_TRUE(fs::exists(e.path().parent_path() / file)) << param.key << " -> " << param.samples;
      }
    }
  }
  EXPECT_GE(defaults, 3);
  EXPECT_GE(count, 4);
}

TEST(calib_ShippedProfiles, BlueFieldArmDefaultUsesTheDpuArmRole) {
  const Profile p = load_profile(
      (fs::path(DPUSIM_SOURCE_DIR) / "hw_calib/profiles/defaults/bluefield-3-arm.yaml").string());
  EXPECT_EQ(p.role, "dpu_arm");
  ASSERT_NE(p.find("dpu_arm.cores"), nullptr);
  EXPECT_EQ(p.find("dpu_arm.cores")->value, 16);
}

TEST(calib_Docs, CalibrationGuideListsEveryRegistryParameter) {
  std::ifstream in(fs::path(DPUSIM_SOURCE_DIR) / "docs/calibration.md");
  ASSERT_TRUE(in.good());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& def : parameter_registry())
    EXPECT_NE(text.find(fmt::format("| `{}` |", def.key)), std::string::npos)
        << def.key
        << " is missing from docs/calibration.md (regenerate with dpusim-calib parameters --markdown)";
}
