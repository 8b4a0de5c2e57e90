// dpusim validate's error targets (sim/input/validation_targets.hpp): what they accept and what they refuse,
// each refusal naming the line and key.
#include "models/base/input_error.hpp"
#include "sim/input/validation_targets.hpp"

#include <gtest/gtest.h>
#include <string>

namespace {

using dpusim::InputError;
using dpusim::input::parse_validation_targets;
using dpusim::input::ValidationNames;

const ValidationNames kNames{{"table-a", "table-b"}, {"row-1", "row-2", "row-3"}};
const std::map<std::string, std::string> kTableOf{
    {"row-1", "table-a"}, {"row-2", "table-a"}, {"row-3", "table-b"}};

auto parse(const std::string& text) {
  return parse_validation_targets(dpusim::yaml::parse_text(text, "targets.yaml"), kNames, kTableOf);
}

std::string error_of(const std::string& text) {
  try {
    (void)parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

} // namespace

TEST(ValidationTargets, ReadsMediansMaximaAndKnownMisses) {
  const auto t = parse("table-a: {median: 0.05, max: 0.12, known_misses: {row-2: because it is small}}\n"
                       "table-b: {median: 0.2, max: 0.2}\n");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_DOUBLE_EQ(t.at("table-a").median, 0.05);
  EXPECT_DOUBLE_EQ(t.at("table-a").max, 0.12);
  EXPECT_EQ(t.at("table-a").known_misses.at("row-2"), "because it is small");
  EXPECT_TRUE(t.at("table-b").known_misses.empty());
  EXPECT_TRUE(parse("").empty());
}

TEST(ValidationTargets, RefusesWhatCannotBeMeantWithTheLineAndKey) {
  EXPECT_NE(error_of("table-c: {median: 0.05, max: 0.1}\n").find("the tables are: table-a, table-b"),
            std::string::npos);
  EXPECT_NE(error_of("table-a: {median: 0.05, max: 0.1}\ntable-b: {median: 0.2, max: 0.1}\n")
                .find("targets.yaml:2"),
            std::string::npos);
  EXPECT_NE(error_of("table-a: {median: 0.2, max: 0.1}\n").find("below the median"), std::string::npos);
  EXPECT_NE(error_of("table-a: {median: -0.1, max: 0.1}\n").find("median"), std::string::npos);
  EXPECT_NE(error_of("table-a: {median: 0.1, max: 5}\n").find("max"), std::string::npos);
  EXPECT_NE(error_of("table-a: {median: 0.1, max: 0.2, known_misses: {row-9: why}}\n").find("row-9"),
            std::string::npos);
  EXPECT_NE(error_of("table-a: {median: 0.1, max: 0.2, known_misses: {row-3: why}}\n")
                .find("belongs to table \"table-b\""),
            std::string::npos);
  EXPECT_NE(error_of("table-a: {median: 0.1, max: 0.2, known_misses: {row-1: ''}}\n").find("non-empty"),
            std::string::npos);
  EXPECT_NE(error_of("table-a: {median: 0.1, max: 0.2, maximum: 0.3}\n").find("maximum"), std::string::npos);
  EXPECT_NE(error_of("table-a: {max: 0.2}\n").find("median"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]\n").find("targets.yaml:1"), std::string::npos);
}

TEST(ValidationTargets, WithoutADirectoryAnyNameIsAccepted) {
  const auto t = parse_validation_targets(
      dpusim::yaml::parse_text("t: {median: 0, max: 1, known_misses: {x: y}}\n", "targets.yaml"));
  EXPECT_EQ(t.at("t").known_misses.size(), 1u);
}
