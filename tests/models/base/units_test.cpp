#include "models/base/text_distance.hpp"
#include "models/base/unit_parse.hpp"
#include "models/base/units.hpp"

#include <gtest/gtest.h>

using namespace dpusim::units;

TEST(Units, ParsesNetworkRatesInBitsPerSecond) {
  EXPECT_DOUBLE_EQ(parse_quantity<DataRate>("400Gbps").si(), 50e9);
  EXPECT_DOUBLE_EQ(parse_quantity<DataRate>("400 Gb/s").si(), 50e9);
  EXPECT_DOUBLE_EQ(parse_quantity<DataRate>("50GB/s").si(), 50e9);
  EXPECT_DOUBLE_EQ(parse_quantity<DataRate>("1GiB/s").si(), 1073741824.0);
}

TEST(Units, ParsesDurationsSizesAndRates) {
  EXPECT_DOUBLE_EQ(parse_quantity<Seconds>("2us").si(), 2e-6);
  EXPECT_DOUBLE_EQ(parse_quantity<Seconds>("1.5ms").si(), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_quantity<Seconds>("600ns").si(), 600e-9);
  EXPECT_DOUBLE_EQ(parse_quantity<Bytes>("80GiB").si(), 80.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_quantity<Bytes>("80GB").si(), 80e9);
  EXPECT_DOUBLE_EQ(parse_quantity<FlopRate>("989TFLOPS").si(), 989e12);
  EXPECT_DOUBLE_EQ(parse_quantity<Frequency>("2.25GHz").si(), 2.25e9);
  EXPECT_DOUBLE_EQ(parse_quantity<Power>("700W").si(), 700.0);
}

TEST(Units, RejectsMissingAndWrongUnitsWithHelpfulMessages) {
  try {
    (void)parse_quantity<DataRate>("400");
    FAIL() << "expected UnitError";
  } catch (const UnitError& e) {
    EXPECT_EQ(std::string(e.what()).find("\"400\" has no unit; a data rate needs one, e.g. \"400Gbps\""), 0u)
        << e.what();
  }
  try {
    (void)parse_quantity<DataRate>("400gbps");
    FAIL() << "expected UnitError";
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean \"Gbps\""), std::string::npos) << e.what();
  }
  // A size is not a rate.
  EXPECT_THROW((void)parse_quantity<DataRate>("80GiB"), UnitError);
  EXPECT_THROW((void)parse_quantity<Seconds>("fast"), UnitError);
}

TEST(Units, CrossDimensionArithmeticHasTheRightTypes) {
  const Bytes size = gib(1);
  const DataRate rate = gbit_per_s(400);
  const Seconds t = size / rate;
  EXPECT_NEAR(t.si(), 1073741824.0 / 50e9, 1e-15);
  const Bytes back = rate * t;
  EXPECT_NEAR(back.si(), size.si(), 1e-3);
  EXPECT_DOUBLE_EQ((flops(2e12) / tflop_per_s(1)).si(), 2.0);
  EXPECT_DOUBLE_EQ(gib(2) / gib(1), 2.0);
}

TEST(Units, FormatsForReaders) {
  EXPECT_EQ(format(gbit_per_s(400)), "400Gbps");
  EXPECT_EQ(format(microseconds(1.5)), "1.5us");
  EXPECT_EQ(format(gib(80)), "80GiB");
}

TEST(Units, ParsesRatios) {
  EXPECT_DOUBLE_EQ(parse_ratio("1:1"), 1.0);
  EXPECT_DOUBLE_EQ(parse_ratio("3:1"), 3.0);
  EXPECT_THROW((void)parse_ratio("3"), UnitError);
  EXPECT_THROW((void)parse_ratio("0:1"), UnitError);
}

TEST(TextDistance, SuggestsCloseCandidatesOnly) {
  const std::vector<std::string> keys{"topology", "tiers", "link", "latency", "oversubscription"};
  EXPECT_EQ(dpusim::did_you_mean("lnik", keys), "link");
  EXPECT_EQ(dpusim::did_you_mean("Latency", keys), "latency");
  EXPECT_EQ(dpusim::did_you_mean("zzzzzz", keys), "");
  EXPECT_EQ(dpusim::did_you_mean("h100", {"h100-sxm", "a100-sxm-80gb"}), "h100-sxm");
}

TEST(Units, QuantitiesOutsideTheModelledRangeAreRejected) {
  // Far outside what hardware does, and where durations and rates would overflow the simulator.
  EXPECT_THROW((void)parse_quantity<Seconds>("1000000h"), UnitError);
  EXPECT_THROW((void)parse_quantity<DataRate>("1e-300bps"), UnitError);
  EXPECT_THROW((void)parse_quantity<Bytes>("1e300PiB"), UnitError);
  EXPECT_THROW((void)parse_quantity<Bytes>("0.5B"), UnitError);
  try {
    (void)parse_quantity<Seconds>("2e6s");
    FAIL();
  } catch (const UnitError& e) {
    EXPECT_STREQ(e.what(),
                 "\"2e6s\" is outside the range of a duration that dpusim models: from 1ns to 1000000s");
  }
  // The ends of the range, and zero (allowed or not by the reader), are accepted.
  EXPECT_DOUBLE_EQ(parse_quantity<Seconds>("1ns").si(), 1e-9);
  EXPECT_DOUBLE_EQ(parse_quantity<DataRate>("1Kbps").si(), 125.0);
  EXPECT_DOUBLE_EQ(parse_quantity<Bytes>("1000PB").si(), 1e18);
  EXPECT_DOUBLE_EQ(parse_quantity<Bytes>("0B").si(), 0.0);
}
