// The pipeline schedule: (interleaved) 1F1B over pp stages of virtual_stages model chunks each, with
// optionally uneven first and last stages.
#include "sim/model/model.hpp"
#include "sim/model/plan_size.hpp"
#include "sim/model/sections/degrees.hpp"

#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

class PipelineModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "pipeline"; }
  [[nodiscard]] std::string_view summary() const override {
    return "(interleaved) 1F1B schedule over the pipeline stages, with uneven first and last stages";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"workload.parallelism.virtual_stages", "count", "1",
         "interleaved 1F1B: model chunks per GPU (needs pp > 1)"},
        {"workload.parallelism.schedule", "choice", "1f1b",
         "1f1b (Megatron-LM's, interleaved with virtual_stages > 1) | dualpipev (DeepSeek's DualPipeV: "
         "two model chunks a GPU in a V, forwards and backwards of different micro-batches paired; needs "
         "virtual_stages: 2 and at least 2 x pp micro-batches a replica)"},
        {"workload.parallelism.first_stage_layers", "count", "an even share",
         "layers of the first pipeline stage (the others share the rest evenly)"},
        {"workload.parallelism.last_stage_layers", "count", "an even share",
         "layers of the last pipeline stage"},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto& w = s.workload;
    const auto& par = w.parallelism;
    const auto before = out.size();
    if (w.virtual_stages < 1) {
      out.push_back({"workload.parallelism.virtual_stages",
                     fmt::format("must be at least 1, found {}", w.virtual_stages)});
      return;
    }
    if (w.virtual_stages > 1 && par.pp < 2)
      out.push_back({"workload.parallelism.virtual_stages",
                     "interleaving (virtual_stages > 1) needs pipeline parallelism (pp > 1)"});
    for (const auto& [key, layers] : {std::pair{"first_stage_layers", par.first_stage_layers},
                                      std::pair{"last_stage_layers", par.last_stage_layers}}) {
      if (layers == 0)
        continue;
      const std::string path = fmt::format("workload.parallelism.{}", key);
      if (layers < 0)
        out.push_back({path, fmt::format("must be at least 1, found {}", layers)});
      else if (par.pp < 2)
        out.push_back({path, fmt::format("{} needs pipeline parallelism (pp > 1)", key)});
      else if (layers < w.virtual_stages)
        out.push_back({path, fmt::format("{} = {} leaves a model chunk of that stage without a layer "
                                         "(virtual_stages = {})",
                                         key, layers, w.virtual_stages)});
    }
    if (out.size() != before || !degrees_positive(w))
      return;
    budgets(s, out);
    if (par.first_stage_layers > 0 || par.last_stage_layers > 0) {
      const int fixed = par.first_stage_layers + par.last_stage_layers;
      const int rest = par.pp - (par.first_stage_layers > 0 ? 1 : 0) - (par.last_stage_layers > 0 ? 1 : 0);
      const int left = w.model.layers - fixed;
      if (rest == 0 ? left != 0 : (left < rest * w.virtual_stages || left % rest != 0))
        out.push_back(
            {"workload.parallelism",
             fmt::format("the model's {} layers less the first and last stages' {} leave {} for the other "
                         "{} stages: {}",
                         w.model.layers, fixed, left, rest,
                         rest == 0 ? "with pp = 2 the two counts must add up to the model's layers"
                                   : fmt::format("they must share them evenly, at least {} each",
                                                 w.virtual_stages))});
    }
    if (par.v_shape)
      check_dualpipev(w, out);
    else if (w.virtual_stages > 1 && w.micro_batches() % par.pp != 0)
      out.push_back(
          {"workload.global_batch",
           fmt::format("the interleaved schedule needs a number of micro-batches per replica ({}) that is a "
                       "multiple of pp = {}",
                       w.micro_batches(), par.pp)});
  }

private:
  /// DualPipeV's own requirements (DUALPIPE-REPO `dualpipev.py`: two modules a rank, `num_chunks >=
  /// num_ranks * 2`), and what its model leaves out.
  static void check_dualpipev(const scenario::WorkloadConfig& w, Problems& out) {
    const auto& par = w.parallelism;
    constexpr const char* key = "workload.parallelism.schedule";
    if (par.pp < 2)
      out.push_back({key, "dualpipev is a pipeline schedule: it needs pp > 1", "workload.parallelism.pp"});
    if (w.virtual_stages != 2)
      out.push_back({key,
                     fmt::format("dualpipev places two model chunks on each GPU in a V: set virtual_stages: "
                                 "2 (found {})",
                                 w.virtual_stages),
                     "workload.parallelism.virtual_stages"});
    if (par.pp >= 2 && w.micro_batches() < 2 * par.pp)
      out.push_back({"workload.global_batch",
                     fmt::format("dualpipev needs at least 2 x pp = {} micro-batches per replica, found {} "
                                 "(global_batch / (micro_batch x dp))",
                                 2 * par.pp, w.micro_batches())});
    if (w.tp_comm_overlap)
      out.push_back({key,
                     "dualpipev is not modelled with tp_comm_overlap (its zero-bubble steps move the weight "
                     "gradients the overlap hides communication behind)",
                     "workload.tp_comm_overlap"});
    if (w.zero_stage >= 3)
      out.push_back({key,
                     "dualpipev is not modelled with zero 3 (its per-layer parameter gathers); use zero 1 "
                     "or 2",
                     "workload.zero"});
  }

  /// The work the schedule asks for, refused before a plan is built (plan_size.hpp).
  static void budgets(const scenario::Scenario& s, Problems& out) {
    const auto& w = s.workload;
    const auto& par = w.parallelism;
    const auto micro = micro_batches_per_replica(w);
    if (micro > kMaxMicroBatches) {
      out.push_back(
          {"workload.global_batch",
           fmt::format("asks each data-parallel replica for {} micro-batches (global_batch / (micro_batch x "
                       "dp) = {} / ({} x {})); at most {} are planned, since the schedule holds each of "
                       "them on every stage: raise micro_batch or dp, or lower global_batch",
                       micro, w.global_batch, w.micro_batch, par.dp, kMaxMicroBatches)});
      return;
    }
    if (const double tasks = planned_tasks(s); tasks > kMaxPlannedTasks) {
      const int replicas = representative_replica(s) ? 1 : par.dp;
      out.push_back(
          {"workload.global_batch",
           fmt::format("plans {:.1f} million tasks (a forward and a backward pass of {} micro-batches on {} "
                       "stage{} x {} model chunk{} x {} simulated replica{}{}); at most {:.0f} million are "
                       "simulated (about 10 GiB): lower global_batch, pp or virtual_stages",
                       tasks / 1e6, micro, par.pp, par.pp == 1 ? "" : "s", w.virtual_stages,
                       w.virtual_stages == 1 ? "" : "s", replicas, replicas == 1 ? "" : "s",
                       w.zero_stage >= 3 ? ", with ZeRO-3's gathers around every layer" : "",
                       kMaxPlannedTasks / 1e6)});
    }
  }
};

} // namespace

std::unique_ptr<Model> make_pipeline_model() {
  return std::make_unique<PipelineModel>();
}

} // namespace dpusim::model
