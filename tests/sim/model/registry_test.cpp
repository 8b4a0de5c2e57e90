// The model registry: keys declared once each, in sections that exist, in the order messages list them;
// calibration bindings that name real parameters; host-side tasks in plan order; and scenarios built
// in memory checked without YAML, each problem naming its key.
#include "models/calibration/parameters.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/model/registry.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <sstream>

using namespace dpusim;

namespace {

const catalog::Catalog& the_catalog() {
  return dpusim::testing::bundled_catalog();
}

scenario::Scenario quickstart() {
  return input::load_scenario(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml",
                              the_catalog());
}

std::vector<std::string> keys_of(const model::Problems& problems) {
  std::vector<std::string> out;
  for (const auto& p : problems)
    out.push_back(p.key);
  return out;
}

bool has_key(const model::Problems& problems, const std::string& key) {
  for (const auto& p : problems)
    if (p.key == key)
      return true;
  return false;
}

std::string parent_of(std::string_view path) {
  const auto dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string() : std::string(path.substr(0, dot));
}

} // namespace

TEST(ModelRegistry, EveryKeyIsDeclaredOnceInASectionThatExists) {
  const auto& reg = model::registry();
  std::set<std::string> seen;
  for (const auto& k : reg.keys()) {
    EXPECT_TRUE(seen.insert(std::string(k.path)).second) << k.path;
    EXPECT_FALSE(k.description.empty()) << k.path;
    EXPECT_FALSE(k.default_value.empty()) << k.path;
    auto parent = parent_of(k.path);
    if (parent.size() > 2 && parent.substr(parent.size() - 2) == "[]")
      parent.resize(parent.size() - 2);
    if (!parent.empty()) {
      const auto* section = reg.find_key(parent);
      ASSERT_NE(section, nullptr) << k.path << " is in an undeclared section " << parent;
      EXPECT_TRUE(section->kind == "section" || section->kind == "list") << parent;
    }
  }
  EXPECT_GT(reg.keys().size(), 60u);
}

TEST(ModelRegistry, ListsASectionsKeysInTheOrderTheyAreDeclared) {
  const auto& reg = model::registry();
  const std::vector<std::string_view> fabric{
      "topology", "tiers",   "link", "latency", "oversubscription", "core_oversubscription",
      "switch",   "routing", "owned"};
  EXPECT_EQ(reg.keys_under("cluster.fabric"), fabric);
  const std::vector<std::string_view> cluster{"nodes",  "gpus_per_node", "node",    "nic",     "dpu",
                                              "fabric", "services",      "storage", "tenants", "placement"};
  EXPECT_EQ(reg.keys_under("cluster"), cluster);
  const std::vector<std::string_view> top{
      "name",        "description", "cluster",           "workload",   "offload", "seed",  "step_seed",
      "calibration", "gpu_profile", "calibration_shape", "validation", "faults",  "noise", "congestion"};
  EXPECT_EQ(reg.keys_under(""), top);
  EXPECT_EQ(reg.keys_under("cluster.services"),
            (std::vector<std::string_view>{"encryption", "overlay", "agents"}));
  EXPECT_EQ(reg.owner("workload.checkpoint.every"), "checkpoint");
  EXPECT_EQ(reg.owner("no.such.key"), "");
}

TEST(ModelRegistry, BindsOnlyRealCalibrationParametersOnce) {
  const auto& reg = model::registry();
  std::set<std::string> bound;
  for (const auto& m : reg.models())
    for (const auto& b : m->calibration()) {
      EXPECT_NE(calibration::find_parameter(b.parameter), nullptr) << b.parameter;
      EXPECT_TRUE(bound.insert(std::string(b.parameter)).second) << b.parameter;
      EXPECT_NE(reg.binding(b.parameter), nullptr) << b.parameter;
    }
  EXPECT_EQ(reg.binding("no.such.parameter"), nullptr);
}

TEST(ModelRegistry, ACalibrationParameterDrivesAModelOrSaysItIsNotUsed) {
  // What dpusim-calib documents as a parameter's use must be what the simulator does with it.
  for (const auto& def : calibration::parameter_registry()) {
    const bool said_unused = def.model_use.rfind("not used by the simulator", 0) == 0;
    EXPECT_EQ(said_unused, model::registry().binding(def.key) == nullptr) << def.key << ": " << def.model_use;
  }
}

TEST(ModelRegistry, RefusesTwoModelsDeclaringOneKey) {
  class Twice final : public model::Model {
  public:
    [[nodiscard]] std::string_view name() const override { return "twice"; }
    [[nodiscard]] std::string_view summary() const override { return "declares cluster.nodes again"; }
    [[nodiscard]] std::vector<model::Key> keys() const override {
      return {{"cluster.nodes", "count", "1", "nodes"}};
    }
  };
  std::vector<std::unique_ptr<model::Model>> models;
  models.push_back(std::make_unique<Twice>());
  models.push_back(std::make_unique<Twice>());
  EXPECT_THROW(model::Registry(std::move(models)), std::logic_error);
}

TEST(ModelRegistry, AddsHostSideTasksInPlanOrder) {
  const auto& reg = model::registry();
  std::vector<std::string_view> order;
  for (const auto& m : reg.models())
    order.push_back(m->name());
  auto at = [&](std::string_view n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
  EXPECT_LT(at("input-pipeline"), at("agents"));
  EXPECT_LT(at("agents"), at("tenants"));
  EXPECT_LT(at("tenants"), at("checkpoint"));
  EXPECT_EQ(reg.extensions().size(), reg.models().size());
}

TEST(ScenarioCheck, ABundledScenarioHasNoProblem) {
  EXPECT_TRUE(model::check_scenario(quickstart(), the_catalog()).empty());
}

TEST(ScenarioCheck, NamesTheKeyOfEachProblemOfAScenarioBuiltInMemory) {
  auto s = quickstart();
  s.workload.parallelism.dp = 3;        // 8 x 3 is not the cluster's 64 GPUs
  s.workload.parallelism.ep = 2;        // no experts in GPT-3
  s.cluster.services.agent_cores = 500; // more than a DGX H100's cores
  const auto problems = model::check_scenario(s, the_catalog());
  EXPECT_TRUE(has_key(problems, "workload.parallelism")) << ::testing::PrintToString(keys_of(problems));
  EXPECT_TRUE(has_key(problems, "workload.parallelism.ep"));
  EXPECT_TRUE(has_key(problems, "cluster.services.agents"));
  for (const auto& p : problems) {
    if (p.key == "workload.parallelism" && p.message.find("GPUs") != std::string::npos) {
      EXPECT_EQ(p.related, "cluster");
    }
  }
}

TEST(ScenarioCheck, ReportsImpossibleCountsWithoutDividingByThem) {
  auto s = quickstart();
  s.workload.parallelism.dp = 0;
  s.workload.micro_batch = 0;
  s.cluster.nodes = 0;
  const auto problems = model::check_scenario(s, the_catalog());
  EXPECT_TRUE(has_key(problems, "workload.parallelism.dp"));
  EXPECT_TRUE(has_key(problems, "workload.micro_batch"));
  EXPECT_TRUE(has_key(problems, "cluster.nodes"));
}

TEST(ScenarioCheck, ChecksVariantsAndCatalogNamesOfAScenarioBuiltInMemory) {
  auto s = quickstart();
  s.cluster.dpu.clear();
  s.cluster.node = "dgx-h10";
  auto dpu = offload::parse_variant("dpu");
  s.variants.push_back(dpu);
  const auto problems = model::check_scenario(s, the_catalog());
  ASSERT_TRUE(has_key(problems, "cluster.node"));
  for (const auto& p : problems) {
    if (p.key == "cluster.node") {
      EXPECT_NE(p.message.find("did you mean \"dgx-h100\""), std::string::npos) << p.message;
    }
  }
  const std::string dpu_key = fmt::format("offload.variants[{}]", s.variants.size() - 2);
  EXPECT_TRUE(has_key(problems, dpu_key)) << ::testing::PrintToString(keys_of(problems));
}

TEST(ScenarioCheck, DataWithoutStorageNamesTheClusterAsRelated) {
  auto s = quickstart();
  s.workload.data = scenario::DataConfig{units::bytes(110e3), units::seconds(1e-3), 4, 2};
  const auto problems = model::check_scenario(s, the_catalog());
  ASSERT_TRUE(has_key(problems, "workload.data"));
  EXPECT_EQ(problems.front().related, "cluster");
}

TEST(Registry, EveryOutputTheSourcesWriteOrReadIsDeclaredOnce) {
  // A misspelt name would read 0: every value("...") and set_value("...") of the simulator's sources
  // names an output some model declares (the planner's own "plan." figures aside).
  namespace fs = std::filesystem;
  const std::regex literal(R"re((?:set_)?value\("([a-z0-9_.]+)")re");
  int seen = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(DPUSIM_SOURCE_DIR) / "sim")) {
    if (entry.path().extension() != ".cpp")
      continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    for (std::sregex_iterator it(source.begin(), source.end(), literal), end; it != end; ++it) {
      const std::string name = (*it)[1];
      if (name.starts_with("plan."))
        continue;
      ++seen;
      EXPECT_NE(model::registry().output(name), nullptr) << name << " in " << entry.path();
    }
  }
  EXPECT_GT(seen, 20);
  std::set<std::string_view> names;
  for (const auto& [model, o] : model::registry().outputs()) {
    EXPECT_TRUE(names.insert(o.name).second) << o.name;
    EXPECT_FALSE(o.unit.empty()) << o.name;
    EXPECT_FALSE(o.description.empty()) << o.name;
  }
  EXPECT_NE(model::registry().output("checkpoint_congestion_cost_s"), nullptr);
  EXPECT_EQ(model::registry().output("straggler_wait_x_s"), nullptr);
  EXPECT_EQ(model::registry().output("_congestion_cost_s"), nullptr);
}
