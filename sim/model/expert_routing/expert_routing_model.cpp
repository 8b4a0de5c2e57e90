// A mixture of experts' routing (workload.routing): balanced, or uneven from a Zipf law or a measured
// expert-load histogram, dropless or with a capacity factor. The stage costs time each expert layer on
// its group's busiest rank and the expert-parallel probe sends each rank its share
// (sim/plan/stage_costs.cpp, expert_parallel_model.cpp); this model declares the keys, checks them and
// reports the load. See docs/models/workload.md, "Routing and expert load".
#include "sim/model/model.hpp"
#include "sim/report/variant_result.hpp"

#include <fmt/format.h>
#include <memory>
#include <set>

namespace dpusim::model {
namespace {

using workload::ExpertRouting;

std::string load_words(const ExpertRouting& r) {
  switch (r.load) {
  case ExpertRouting::Load::balanced:
    return "balanced";
  case ExpertRouting::Load::zipf:
    return fmt::format("Zipf, exponent {:g}, experts' popularity drawn per layer from seed {}",
                       r.zipf_exponent, r.seed);
  case ExpertRouting::Load::measured:
    return "the measured histogram";
  }
  return {};
}

class ExpertRoutingModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "expert-routing"; }
  [[nodiscard]] std::string_view summary() const override {
    return "mixture-of-experts routing: balanced, Zipf or measured expert load, capacity factor; each expert "
           "layer paced by its busiest expert-parallel rank";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"workload.routing", "section", "— (balanced, dropless)",
         "how the router spreads a mixture of experts' token copies over its experts"},
        {"workload.routing.load", "choice", "balanced",
         "balanced (every expert the same: benchmark tables' forced balance) | zipf | measured"},
        {"workload.routing.zipf_exponent", "number", "required with zipf",
         "s, from 0 to 16: the expert of popularity rank i gets a share proportional to 1/i^s"},
        {"workload.routing.seed", "count", "1",
         "with zipf: which expert has which popularity rank, drawn for each layer from this seed (a "
         "property of the trained model, fixed for the job)"},
        {"workload.routing.expert_load", "list of numbers", "required with measured",
         "each expert's tokens or share in expert order (as many as the model's experts), the same in "
         "every expert layer"},
        {"workload.routing.node_limit", "count", "— (any)",
         "nodes a token's experts may lie on (DeepSeek-V3: 4); bounds the RDMA bytes of a per-node "
         "dispatch (needs workload.communication.ep_dispatch: deepep), at most the nodes an expert group "
         "spans"},
        {"workload.routing.capacity_factor", "number", "— (dropless)",
         "tokens an expert takes, as a multiple of a balanced expert's (above 0); copies beyond it are "
         "dropped (Megatron-Core's --moe-expert-capacity-factor, without padding)"},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto& w = s.workload;
    if (!w.routing)
      return;
    if (!w.model.moe()) {
      out.push_back({"workload.routing",
                     "routing needs a mixture-of-experts model (experts, top_k, expert_ffn)",
                     "workload.model"});
      return;
    }
    const auto& r = *w.routing;
    if (r.node_limit > 0) {
      if (!w.ep_dispatch_per_node)
        out.push_back(
            {"workload.routing.node_limit",
             "a node limit changes what crosses the network only where a token is sent once per node: "
             "add workload.communication.ep_dispatch: deepep (NCCL's all-to-all sends every copy)"});
      std::set<int> nodes;
      if (s.cluster.gpus_per_node > 0 && w.parallelism.ep > 1)
        for (int g : workload::ep_group(w.parallelism, 0, 0, 0))
          nodes.insert(g / s.cluster.gpus_per_node);
      if (!nodes.empty() && r.node_limit > static_cast<int>(nodes.size()))
        out.push_back(
            {"workload.routing.node_limit",
             fmt::format("{} is more nodes than an expert group spans ({}: ep = {} over {} GPUs a node)",
                         r.node_limit, nodes.size(), w.parallelism.ep, s.cluster.gpus_per_node)});
    }
    if (r.load == ExpertRouting::Load::measured && static_cast<int>(r.expert_load.size()) != w.model.experts)
      out.push_back(
          {"workload.routing.expert_load",
           fmt::format("lists {} experts; the model has {} (one figure per expert, in expert order)",
                       r.expert_load.size(), w.model.experts)});
  }
  [[nodiscard]] std::vector<report::Output> outputs() const override {
    return {
        {"expert_load_max", "ratio",
         "under uneven routing: the busiest expert-parallel rank's token copies over a balanced rank's, "
         "mean over the expert layers"},
        {"dropped_token_share", "fraction",
         "under a capacity factor: the share of routed token copies dropped, mean over the expert layers"}};
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto& w = run.scenario.workload;
    if (!w.routing || !w.routing->uneven() || !w.model.moe())
      return;
    const auto& routing = *w.routing;
    const int ep = w.parallelism.ep;
    const auto sum = workload::summarize_routing(w.model, routing, ep);
    if (sum.expert_layers == 0)
      return;
    r.set_value("expert_load_max", sum.mean_max_load);
    if (routing.capacity_factor)
      r.set_value("dropped_token_share", sum.mean_dropped);
    std::string text = fmt::format("Expert routing ({}): ", load_words(routing));
    if (ep > 1)
      text += fmt::format("an expert layer's busiest of its {} expert-parallel ranks processes {:.2f}x a "
                          "balanced rank's token copies (mean over {} expert layers, at most {:.2f}x); every "
                          "rank of the group waits for it at the all-to-all that combines the experts' "
                          "results, so each expert layer takes as long as on that rank",
                          ep, sum.mean_max_load, sum.expert_layers, sum.worst_max_load);
    else
      text +=
          "with ep = 1 every rank holds all the experts and processes all its tokens' copies, so an uneven "
          "load does not slow one rank more than another";
    if (routing.capacity_factor)
      text +=
          fmt::format("; the capacity factor {:g} drops {:.1f}% of the routed token copies (they skip the "
                      "experts: the model is trained on fewer)",
                      *routing.capacity_factor, 100 * sum.mean_dropped);
    r.notes.push_back(text + ".");
  }
};

} // namespace

std::unique_ptr<Model> make_expert_routing_model() {
  return std::make_unique<ExpertRoutingModel>();
}

} // namespace dpusim::model
