// The storage probe's size limits: an upper bound on --storage-size and the free space it needs.
#include "hw_calib/probes/storage_probe.hpp"

#include <gtest/gtest.h>

using namespace dpusim::calib;

TEST(calib_StorageLimits, TheFileHasAnUpperBoundAndMustLeaveFreeSpace) {
  constexpr double GiB = 1024.0 * 1024 * 1024;
  constexpr double MiB = 1024.0 * 1024;
  EXPECT_FALSE(storage_size_problem(1 * GiB, 100 * GiB).has_value());
  EXPECT_FALSE(storage_size_problem(64 * GiB, 1000 * GiB).has_value()); // the bound itself
  const auto too_big = storage_size_problem(65 * GiB, 1000 * GiB);
  ASSERT_TRUE(too_big.has_value());
  EXPECT_NE(too_big->find("at most 64"), std::string::npos) << *too_big;
  // The file plus a tenth of it, at least 64 MiB, must be free.
  EXPECT_FALSE(storage_size_problem(10 * GiB, 11 * GiB + MiB).has_value());
  const auto tight = storage_size_problem(10 * GiB, 10.5 * GiB);
  ASSERT_TRUE(tight.has_value());
  EXPECT_NE(tight->find("free"), std::string::npos) << *tight;
  EXPECT_NE(tight->find("--storage-dir"), std::string::npos) << *tight;
  EXPECT_TRUE(storage_size_problem(64 * MiB, 100 * MiB).has_value());
  EXPECT_FALSE(storage_size_problem(64 * MiB, 129 * MiB).has_value());
}
