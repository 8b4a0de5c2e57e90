// A profile's measured all-reduce latency sets the step latency of the protocol NCCL runs at small sizes,
// so that the closed forms give that all-reduce the measured time on the profile's shape; where the
// profile cannot say what it measured, or the variant does not run what it measured, it is not taken
// and says why. On the quickstart's DGX H100 nodes and 400 Gb/s fabric.
#include "sim/estimate/comm_costs.hpp"
#include "sim/estimate/measured_latency.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/model/registry.hpp"
#include "sim/scenario/cluster_layout.hpp"

#include <gtest/gtest.h>

namespace dpusim::estimate {
namespace {

struct Shape {
  double latency_s = 0;
  int ranks = 0; // 0: not in the profile
  int nodes = 0;
};

calibration::Profile profile_of(const Shape& m) {
  calibration::Profile p;
  const auto add = [&p](const char* key, double value) {
    calibration::ProfileParam param;
    param.key = key;
    param.value = value;
    param.source = "test";
    p.parameters.push_back(param);
  };
  add("collective.allreduce_latency", m.latency_s);
  if (m.ranks > 0)
    add("collective.allreduce_ranks", m.ranks);
  if (m.nodes > 0)
    add("collective.allreduce_nodes", m.nodes);
  return p;
}

struct Rig {
  explicit Rig(const std::string& variant_name) {
    for (const auto& v : s.variants)
      if (v.name == variant_name)
        variant = v;
    catalog_hw = calibrated_hardware(s, cat, variant, nullptr, "");
  }
  /// The hardware with a profile of `m`.
  [[nodiscard]] scenario::Hardware with(const Shape& m) const {
    const auto p = profile_of(m);
    return calibrated_hardware(s, cat, variant, &p, "measured.yaml");
  }
  /// What NCCL's choice at 8 B over `nodes` x `per_node` GPUs takes in the closed forms on `hw`.
  [[nodiscard]] double small_all_reduce_s(const scenario::Hardware& hw, int nodes, int per_node) const {
    auto layout = scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch);
    layout.nodes = nodes;
    const datapath::DataPath path(variant, s.cluster.services, hw);
    const NcclCommCosts costs(layout, hw, path, s.cluster.fabric.routing);
    std::vector<int> group;
    for (int n = 0; n < nodes; ++n)
      for (int g = 0; g < per_node; ++g)
        group.push_back(n * layout.node.gpus + g);
    const auto c = costs.choice(CollectiveKind::all_reduce, group, 8);
    return costs.collective(CollectiveKind::all_reduce, c, {group}).latency_s;
  }
  catalog::Catalog cat =
      catalog::Catalog::load(std::filesystem::path(DPUSIM_SOURCE_DIR) / "models/catalog/data");
  scenario::Scenario s =
      input::load_scenario(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml", cat);
  offload::Variant variant;
  scenario::Hardware catalog_hw;
};

const scenario::CalibratedValue& latency_entry(const scenario::Hardware& hw) {
  for (const auto& cv : hw.calibrated)
    if (cv.key == "collective.allreduce_latency")
      return cv;
  throw std::logic_error("no collective.allreduce_latency among the calibrated values");
}

void expect_catalog_steps(const scenario::Hardware& hw, const scenario::Hardware& catalog_hw) {
  for (const auto p : catalog::kNcclProtocols) {
    const auto ours = hw.collective.protocol(p);
    const auto theirs = catalog_hw.collective.protocol(p);
    ASSERT_TRUE(ours && theirs);
    EXPECT_DOUBLE_EQ(ours->step_latency_network.value.si(), theirs->step_latency_network.value.si());
    EXPECT_DOUBLE_EQ(ours->step_latency_nvlink.value.si(), theirs->step_latency_nvlink.value.si());
  }
}

TEST(MeasuredLatency, AcrossNodesTheClosedFormsGiveTheMeasuredTimeOnItsShape) {
  const Rig r("rdma-nic");
  for (const Shape m : {Shape{40e-6, 16, 2}, Shape{24.2e-6, 2, 2}, Shape{90e-6, 64, 8}}) {
    const auto hw = r.with(m);
    EXPECT_NEAR(r.small_all_reduce_s(hw, m.nodes, m.ranks / m.nodes), m.latency_s, 1e-9) << m.ranks;
    const auto& cv = latency_entry(hw);
    EXPECT_TRUE(cv.used);
    EXPECT_NE(cv.note.find("each network step of LL"), std::string::npos) << cv.note;
    // Only LL's network step moved: the others keep the catalog's.
    EXPECT_GT(hw.collective.ll->step_latency_network.value.si(),
              r.catalog_hw.collective.ll->step_latency_network.value.si());
    EXPECT_EQ(hw.collective.ll->step_latency_network.cite.kind, catalog::Citation::Kind::calibration);
    // A tree's network step (and a ring's of one rank a node) moves by as much.
    EXPECT_NEAR(hw.collective.ll->tree_step_latency_network.value.si() -
                    r.catalog_hw.collective.ll->tree_step_latency_network.value.si(),
                hw.collective.ll->step_latency_network.value.si() -
                    r.catalog_hw.collective.ll->step_latency_network.value.si(),
                1e-12);
    EXPECT_DOUBLE_EQ(hw.collective.ll->step_latency_nvlink.value.si(),
                     r.catalog_hw.collective.ll->step_latency_nvlink.value.si());
    EXPECT_DOUBLE_EQ(hw.collective.step_latency_network.value.si(),
                     r.catalog_hw.collective.step_latency_network.value.si());
    EXPECT_DOUBLE_EQ(hw.collective.ll128->step_latency_network.value.si(),
                     r.catalog_hw.collective.ll128->step_latency_network.value.si());
  }
}

TEST(MeasuredLatency, OnOneNodeItSetsTheNvlinkStep) {
  const Rig r("rdma-nic");
  const auto hw = r.with({20e-6, 8, 1});
  EXPECT_NEAR(r.small_all_reduce_s(hw, 1, 8), 20e-6, 1e-9);
  EXPECT_NE(latency_entry(hw).note.find("each NVLink step of"), std::string::npos) << latency_entry(hw).note;
  EXPECT_DOUBLE_EQ(hw.collective.ll->step_latency_network.value.si(),
                   r.catalog_hw.collective.ll->step_latency_network.value.si());
  // Host TCP runs the same NVLink inside a node: taken there too.
  const Rig tcp("host-tcp");
  EXPECT_TRUE(latency_entry(tcp.with({20e-6, 8, 1})).used);
}

TEST(MeasuredLatency, BelowTheModelsTimeTheStepIsHeldAtZeroAndSaysSo) {
  const Rig r("rdma-nic");
  const auto hw = r.with({1e-6, 2, 2});
  EXPECT_DOUBLE_EQ(hw.collective.ll->step_latency_network.value.si(), 0.0);
  EXPECT_NE(latency_entry(hw).note.find("held at zero"), std::string::npos) << latency_entry(hw).note;
}

TEST(MeasuredLatency, IsNotTakenWhereTheProfileOrTheVariantCannotSayWhatItMeasured) {
  const Rig r("rdma-nic");
  const Rig tcp("host-tcp");
  const struct {
    const Rig* rig;
    Shape shape;
    const char* why;
  } cases[] = {
      {&r, {40e-6, 0, 0}, "the profile does not say how many ranks and nodes"},
      {&r, {40e-6, 16, 0}, "the profile does not say how many ranks and nodes"},
      {&r, {40e-6, 1, 1}, "the model needs two ranks or more"},
      {&r, {40e-6, 12, 8}, "the same number on each node"},
      {&r, {40e-6, 32, 2}, "it was measured with 16 ranks a node; the scenario's dgx-h100 has 8 GPUs"},
      {&tcp, {40e-6, 16, 2}, "this variant's collectives run over host TCP"},
  };
  for (const auto& c : cases) {
    const auto hw = c.rig->with(c.shape);
    const auto& cv = latency_entry(hw);
    EXPECT_FALSE(cv.used) << c.why;
    EXPECT_EQ(cv.note.rfind("not taken: ", 0), 0u) << cv.note;
    EXPECT_NE(cv.note.find(c.why), std::string::npos) << cv.note;
    expect_catalog_steps(hw, c.rig->catalog_hw);
  }
}

} // namespace
} // namespace dpusim::estimate
