#include "models/core/yaml_reader.hpp"

#include <gtest/gtest.h>

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
            "s.yaml:1:4: error: n: must be at least 1, found 0");
  EXPECT_EQ(
      error_of([&] {
        (void)map.required("p").as_choice({"bf16", "fp16", "fp8"});
      }),
      "s.yaml:2:4: error: p: \"bf61\" is not valid (did you mean \"bf16\"?); valid values: bf16, fp16, fp8");
}
