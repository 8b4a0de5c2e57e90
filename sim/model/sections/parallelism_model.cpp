// Tensor, pipeline and data parallelism: how the GPUs are divided, and what each degree must divide.
// Tensor-parallel collectives are simulated once on the platform (the probe) and reused.
#include "sim/model/model.hpp"
#include "sim/model/sections/degrees.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/topology/topology.hpp"

#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

// Layers the first and last stages could take so that the others share the rest evenly, as a hint.
std::string uneven_stages_hint(int layers, int pp) {
  if (pp < 2 || layers < pp)
    return {};
  const int others = (layers + pp - 1) / pp; // each of the pp - 2 middle stages
  const int ends = layers - (pp - 2) * others;
  if (ends < 2)
    return {};
  const int first = ends / 2;
  return fmt::format(
      ", or give the first and last stages fewer (first_stage_layers: {} and last_stage_layers: "
      "{}{})",
      first, ends - first,
      pp > 2 ? fmt::format(" leave {} to each of the other {} stages", others, pp - 2) : "");
}

class ParallelismModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "parallelism"; }
  [[nodiscard]] std::string_view summary() const override {
    return "tensor, pipeline and data parallelism; tensor-parallel collectives simulated once (the probe)";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"workload.parallelism.tp", "count", "required", "tensor-parallel degree"},
        {"workload.parallelism.pp", "count", "1", "pipeline-parallel degree"},
        {"workload.parallelism.dp", "count", "required", "data-parallel degree"},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto& w = s.workload;
    const auto& p = w.parallelism;
    for (const auto& [key, value] :
         {std::pair{"workload.parallelism.tp", p.tp}, std::pair{"workload.parallelism.pp", p.pp},
          std::pair{"workload.parallelism.dp", p.dp}})
      if (value < 1)
        out.push_back({key, fmt::format("must be at least 1, found {}", value)});
    if (!degrees_positive(w))
      return;
    const auto& cluster = s.cluster;
    const double gpus = static_cast<double>(cluster.nodes) * cluster.gpus_per_node;
    if (p.world() != gpus)
      out.push_back(
          {"workload.parallelism",
           fmt::format("{} = {} GPUs, but the cluster has {} nodes x {} GPUs = {:.0f}",
                       p.cp > 1 ? fmt::format("tp x cp x pp x dp = {} x {} x {} x {}", p.tp, p.cp, p.pp, p.dp)
                                : fmt::format("tp x pp x dp = {} x {} x {}", p.tp, p.pp, p.dp),
                       fmt::format("{:.0f}", p.world()), cluster.nodes, cluster.gpus_per_node, gpus),
           "cluster"});
    const auto& m = w.model;
    if (m.heads % p.tp != 0)
      out.push_back({"workload.parallelism",
                     fmt::format("tp = {} must divide the model's {} attention heads", p.tp, m.heads)});
    if (m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
      out.push_back(
          {"workload.parallelism",
           fmt::format("tp = {} and the model's {} kv heads must divide one another", p.tp, m.kv_heads)});
    if (m.ffn % p.tp != 0)
      out.push_back(
          {"workload.parallelism", fmt::format("tp = {} must divide the feed-forward size {}", p.tp, m.ffn)});
    if (m.moe() && m.expert_ffn % p.tp != 0)
      out.push_back(
          {"workload.parallelism",
           fmt::format("tp = {} must divide the experts' feed-forward size {}", p.tp, m.expert_ffn)});
    const bool uneven = p.first_stage_layers > 0 || p.last_stage_layers > 0;
    if (!uneven && m.layers % (p.pp * w.virtual_stages) != 0)
      out.push_back({"workload.parallelism",
                     w.virtual_stages > 1
                         ? fmt::format("pp x virtual_stages = {} x {} must divide the model's {} layers",
                                       p.pp, w.virtual_stages, m.layers)
                         : fmt::format("pp = {} must divide the model's {} layers{}", p.pp, m.layers,
                                       uneven_stages_hint(m.layers, p.pp))});
    if (w.sequence_parallel && p.tp == 1)
      out.push_back({"workload.parallelism", "sequence_parallel needs tp > 1"});
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto& par = run.scenario.workload.parallelism;
    if (run.representative)
      r.notes.push_back(
          fmt::format("data-parallel replicas are symmetric: 1 of {} computed and sent activations; "
                      "its data-parallel collectives carried the bytes of all {}",
                      par.dp, par.dp));
    if (par.tp > run.topology.layout().node.gpus)
      r.notes.push_back(
          "tensor parallelism spans nodes: its collectives are simulated once in isolation and reused, "
          "so their contention with data-parallel traffic is not modelled");
  }
  void add_probes(plan::ProbeContext& ctx) const override {
    // One tensor-parallel all-reduce of the first replica's stage 0.
    const auto& p = ctx.parallelism;
    if (p.tp > 1 && ctx.first_stage.tp_bytes > 0)
      (void)plan::append_to_graph(ctx.plan.probe,
                                  ctx.lowering.collective(plan::CollectiveKind::all_reduce,
                                                          plan::tp_algorithm(ctx.algorithm, ctx.first_stage),
                                                          workload::tp_group(p, 0, 0),
                                                          ctx.first_stage.tp_bytes),
                                  {});
  }
};

} // namespace

std::unique_ptr<Model> make_parallelism_model() {
  return std::make_unique<ParallelismModel>();
}

} // namespace dpusim::model
