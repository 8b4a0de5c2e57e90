// Every plausible range of a calibration profile cites a source of the catalog's bibliography.
#include "models/calibration/plausibility.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <gtest/gtest.h>

TEST(PlausibilitySources, EveryRangeCitesACatalogSource) {
  const auto& sources = dpusim::testing::bundled_catalog().sources();
  for (const auto& r : dpusim::calibration::plausible_ranges()) {
    EXPECT_NE(sources.find(std::string(r.source)), nullptr) << r.parameter << ": " << r.source;
    EXPECT_LT(r.low, r.high) << r.parameter;
    EXPECT_FALSE(r.meaning.empty()) << r.parameter;
  }
}
