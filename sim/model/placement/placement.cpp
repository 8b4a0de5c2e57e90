// cluster.placement: where the scheduler puts the job's nodes on the fabric. Packed (the default) wires
// them in rank order, consecutive nodes on one leaf, as a topology-aware scheduler hands them out;
// scattered draws their positions from the job's seed, as a scheduler that ignores the topology does, so
// that each launch (`--launches`) lands its rings on other leaves. The step's draws (`--samples`) keep
// the job's placement.
#include "models/base/seed_mix.hpp"
#include "sim/model/model.hpp"
#include "sim/model/registry.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/topology/topology.hpp"

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <fmt/format.h>
#include <numeric>

namespace dpusim::model {
namespace {

/// A stream of its own for the placement, from the job's seed, so that turning placement on does not
/// move the job's other draws.
std::uint64_t placement_seed(std::uint64_t job_seed) {
  return mix(job_seed ^ 0x706c6163656d656eULL); // "placemen"
}

/// Of the pairs of nodes adjacent in rank order, how many hang their first NICs off the same leaf.
int adjacent_on_one_leaf(const topology::ClusterLayout& layout) {
  const auto shape = topology::fabric_shape(layout);
  int same = 0;
  for (int n = 0; n + 1 < layout.nodes; ++n)
    same += topology::leaf_of_nic(layout, shape, n, 0) == topology::leaf_of_nic(layout, shape, n + 1, 0);
  return same;
}

class PlacementModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "placement"; }
  [[nodiscard]] std::string_view summary() const override {
    return "where the scheduler places the job's nodes on the fabric: packed in rank order, or scattered "
           "at random by the job's seed";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {{"cluster.placement", "choice", "packed",
             "packed (the job's nodes in rank order on the fabric, consecutive nodes on one leaf, as a "
             "topology-aware scheduler hands them out) | scattered (their positions drawn from the job's "
             "seed: each launch of --launches draws its own; the step's draws of --samples keep it)"}};
  }
  void shape_layout(const scenario::Scenario& s, const offload::Variant& /*v*/,
                    topology::ClusterLayout& layout) const override {
    if (!s.cluster.scattered)
      return;
    layout.node_slot.resize(static_cast<std::size_t>(layout.nodes));
    std::iota(layout.node_slot.begin(), layout.node_slot.end(), 0);
    boost::random::mt19937_64 rng(placement_seed(s.seed));
    for (std::size_t i = layout.node_slot.size(); i > 1; --i) {
      boost::random::uniform_int_distribution<std::size_t> pick(0, i - 1);
      std::swap(layout.node_slot[i - 1], layout.node_slot[pick(rng)]);
    }
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    if (!run.scenario.cluster.scattered)
      return;
    const auto& layout = run.topology.layout();
    auto packed = layout;
    packed.node_slot.clear();
    const int pairs = std::max(0, layout.nodes - 1);
    r.notes.push_back(fmt::format(
        "placement scattered (the job's seed {}): of the {} pairs of nodes adjacent in rank order, {} share "
        "a leaf, against {} packed; another launch (--launches) draws another placement",
        run.scenario.seed, pairs, adjacent_on_one_leaf(layout), adjacent_on_one_leaf(packed)));
  }
};

} // namespace

std::unique_ptr<Model> make_placement_model() {
  return std::make_unique<PlacementModel>();
}

} // namespace dpusim::model
