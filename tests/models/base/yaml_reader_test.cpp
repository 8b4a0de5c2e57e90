#include "models/base/input_error.hpp"
#include "models/base/text_distance.hpp"
#include "models/base/yaml_reader.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <limits>
#include <string>

using namespace dpusim;

namespace {
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
} // namespace

TEST(YamlReader, EndsOnAStrayCommaThatYamlCppLoadsWithoutEnd) {
  // yaml-cpp 0.7's LoadAll loops on these, allocating without bound (its issue 1040).
  for (const char* text : {",", ",,,,", "[a, b]\n,", " ,\n,"}) {
    try {
      (void)yaml::parse_text(text, "stray.yaml");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("stray.yaml:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("invalid YAML"), std::string::npos) << text << ": " << e.what();
    }
  }
  EXPECT_NO_THROW((void)yaml::parse_text("a: 1\n", "one.yaml"));
  EXPECT_THROW((void)yaml::parse_text("a: 1\n---\nb: 2\n", "two.yaml"), InputError);
  EXPECT_THROW((void)yaml::parse_text("a: 1\n---\n,\n", "comma-document.yaml"), InputError);
}

TEST(YamlReader, ReportsUnknownKeysWithLocationAndSuggestion) {
  const auto root = yaml::parse_text("fabric:\n  link: 400Gbps\n  lantency: 1us\n", "s.yaml");
  const std::string msg = error_of([&] {
    auto top = root.as_map();
    auto fabric = top.required("fabric").as_map();
    (void)fabric.required("link").as_quantity<units::DataRate>();
    (void)fabric.optional("latency");
    fabric.finish();
  });
  EXPECT_EQ(msg,
            "s.yaml:3:3: error: fabric.lantency: unknown key; did you mean \"latency\"? (valid keys here: "
            "link, latency)");
}

TEST(YamlReader, ReportsWrongUnitsAtTheValue) {
  const auto root = yaml::parse_text("link: 400G\n", "s.yaml");
  const std::string msg =
      error_of([&] { (void)root.as_map().required("link").as_quantity<units::DataRate>(); });
  EXPECT_NE(msg.find("s.yaml:1:7: error: link: unknown unit \"G\""), std::string::npos) << msg;
}

TEST(YamlReader, ReportsMissingKeysAtTheParent) {
  const auto root = yaml::parse_text("cluster:\n  nodes: 8\n", "s.yaml");
  const std::string msg =
      error_of([&] { (void)root.as_map().required("cluster").as_map().required("node"); });
  EXPECT_EQ(msg, "s.yaml:2:3: error: cluster.node: missing required key");
}

TEST(YamlReader, RejectsDuplicateKeys) {
  const auto root = yaml::parse_text("a: 1\na: 2\n", "s.yaml");
  const std::string msg = error_of([&] { (void)root.as_map(); });
  EXPECT_EQ(msg, "s.yaml:2:1: error: a: duplicate key: it appears more than once in this mapping");
}

TEST(YamlReader, ReportsSyntaxErrors) {
  const std::string msg = error_of([&] { (void)yaml::parse_text("a: [1, 2\n", "s.yaml"); });
  EXPECT_EQ(msg.rfind("s.yaml:", 0), 0u) << msg;
  EXPECT_NE(msg.find("invalid YAML"), std::string::npos) << msg;
}

TEST(YamlReader, ChecksRangesAndChoices) {
  const auto root = yaml::parse_text("n: 0\np: bf61\n", "s.yaml");
  auto map = root.as_map();
  EXPECT_EQ(error_of([&] { (void)map.required("n").as_int(1, 100); }),
            "s.yaml:1:4: error: n: must be at least 1, found 0 (valid: 1 to 100)");
  EXPECT_EQ(
      error_of([&] {
        (void)map.required("p").as_choice({"bf16", "fp16", "fp8"});
      }),
      "s.yaml:2:4: error: p: \"bf61\" is not valid (did you mean \"bf16\"?); valid values: bf16, fp16, fp8");
}

TEST(YamlReader, NamesTheValidRangeOfANumberBeyondIt) {
  const auto root = yaml::parse_text("a: 99999999999999999999\nb: -99999999999999999999\nc: 101\nd: 1e999\n"
                                     "e: 1e-999\nf: 0x10\ng: one\n",
                                     "s.yaml");
  auto map = root.as_map();
  EXPECT_EQ(error_of([&] { (void)map.required("a").as_int(1, 100); }),
            "s.yaml:1:4: error: a: must be at most 100, found 99999999999999999999 (valid: 1 to 100)");
  EXPECT_EQ(error_of([&] { (void)map.required("b").as_int(1, 100); }),
            "s.yaml:2:4: error: b: must be at least 1, found -99999999999999999999 (valid: 1 to 100)");
  EXPECT_EQ(error_of([&] { (void)map.required("c").as_int(1, 100); }),
            "s.yaml:3:4: error: c: must be at most 100, found 101 (valid: 1 to 100)");
  EXPECT_EQ(error_of([&] { (void)map.required("a").as_int(0, std::numeric_limits<std::int64_t>::max()); }),
            "s.yaml:1:4: error: a: must be at most 9223372036854775807, found 99999999999999999999 (valid: 0 "
            "to 9223372036854775807)");
  EXPECT_EQ(error_of([&] { (void)map.required("d").as_number(0, 10); }),
            "s.yaml:4:4: error: d: must be between 0 and 10, found 1e999");
  EXPECT_DOUBLE_EQ(map.required("e").as_number(0, 10), 0.0);
  EXPECT_EQ(error_of([&] { (void)map.required("f").as_number(0, 100); }),
            "s.yaml:6:4: error: f: expected a number, found \"0x10\"");
  EXPECT_EQ(error_of([&] { (void)map.required("g").as_int(0, 1); }),
            "s.yaml:7:4: error: g: expected a whole number, found \"one\"");
}

TEST(YamlReader, RefusesNestingDeeperThanItsLimitSayingSo) {
  // yaml-cpp's own limit (500 levels) says only "bad file".
  const std::string deep = "a: " + std::string(600, '[') + std::string(600, ']') + "\n";
  const std::string msg = error_of([&] { (void)yaml::parse_text(deep, "deep.yaml"); });
  EXPECT_NE(msg.find("deep.yaml:1:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nested more than 64 deep"), std::string::npos) << msg;
  std::string ok = "a: ";
  for (int i = 0; i < 63; ++i)
    ok += "[";
  ok += std::string(63, ']') + "\n";
  EXPECT_NO_THROW((void)yaml::parse_text(ok, "ok.yaml"));
}

TEST(YamlReader, CountsNodesThroughAliasesAndRefusesMoreThanItsBudget) {
  // Nine lines that stand for 10^9 scalars when read through their aliases.
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    bomb += fmt::format("{}: &{} [", c, c);
    for (int i = 0; i < 10; ++i)
      bomb += fmt::format("{}*{}", i == 0 ? "" : ", ", static_cast<char>(c - 1));
    bomb += "]\n";
  }
  const std::string msg = error_of([&] { (void)yaml::parse_text(bomb, "bomb.yaml"); });
  EXPECT_NE(msg.find("bomb.yaml:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("more than 100000 YAML nodes"), std::string::npos) << msg;
  // A flat list: the node after the budget is the one refused.
  std::string list = "[";
  for (int i = 0; i < 100'000; ++i)
    list += "1,";
  list += "1]\n";
  EXPECT_NE(error_of([&] { (void)yaml::parse_text(list, "list.yaml"); }).find("more than 100000 YAML nodes"),
            std::string::npos);
  EXPECT_NO_THROW((void)yaml::parse_text("a: &a [1, 2]\nb: *a\nc: *a\n", "aliases.yaml"));
}

TEST(YamlReader, EmptyListsAndMappingsCountAgainstTheBudget) {
  // `x: [[],[],...]`, its `{}` twin and nested empties: each collection is a node, refused as it is read
  // (5 million empty lists in 15 MiB were built into 2.4 GiB before the first error).
  for (const std::string& each : {std::string("[]"), std::string("{}"), std::string("[[]]"),
                                  std::string("[{}]"), std::string("{a: []}")}) {
    std::string text = "x: [";
    for (int i = 0; i <= 100'000; ++i)
      text += (i == 0 ? "" : ",") + each;
    text += "]\n";
    const std::string msg = error_of([&] { (void)yaml::parse_text(text, "empties.yaml"); });
    EXPECT_NE(msg.find("empties.yaml:1:"), std::string::npos) << each << ": " << msg;
    EXPECT_NE(msg.find("more than 100000 YAML nodes"), std::string::npos) << each << ": " << msg;
  }
  EXPECT_NO_THROW((void)yaml::parse_text("x: [[], {}, [[]], {a: []}]\n", "few.yaml"));
}

TEST(YamlReader, RefusesAnAliasInsideTheNodeItNames) {
  const std::string msg = error_of([&] { (void)yaml::parse_text("a: &a [1, *a]\n", "cycle.yaml"); });
  EXPECT_NE(msg.find("cannot contain itself"), std::string::npos) << msg;
}

TEST(TextDistance, ALongValueCostsNoSuggestionSearch) {
  // A value of megabytes compared with every name took seconds and hundreds of MiB (an n x m table).
  const std::string pasted(4u << 20, 'x');
  EXPECT_EQ(did_you_mean(pasted, {"dgx-h100", "dgx-a100"}), "");
  EXPECT_EQ(did_you_mean("dgx-h10", {"dgx-h100", "dgx-a100"}), "dgx-h100");
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("sitting", "kitten"), 3u);
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
  EXPECT_EQ(edit_distance(std::string(3000, 'a'), "a"), 2999u);
}
