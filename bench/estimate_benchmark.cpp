// How fast the planner's analytic tier is, per core: the bundled layout search
// (plans/search-gpt3-175b-512xh100.yaml, 1,248 points) evaluated as `dpusim plan` does it.
//   Estimate:        one feasible configuration's step estimated and turned into its result (the
//                    scenario already built: what the tier costs beyond reading the point);
//   EstimateNcclChoice: the same under NCCL's own choice of algorithm and protocol (`auto`);
//   BuildAndEstimate: a point built from the plan (its YAML overrides read and checked like a scenario
//                    file, infeasible points included) and, where feasible, estimated.
// Run: build/bench/dpusim_bench_estimate (tools/planner-benchmark.sh quotes its figures).
#include "sim/estimate/step_estimate.hpp"
#include "sim/planner/plan_file.hpp"
#include "sim/planner/points.hpp"

#include <benchmark/benchmark.h>
#include <filesystem>

namespace {

using namespace dpusim;

struct Search {
  catalog::Catalog cat =
      catalog::Catalog::load(std::filesystem::path(DPUSIM_SOURCE_DIR) / "models/catalog/data");
  planner::Plan plan =
      planner::load_plan(std::string(DPUSIM_SOURCE_DIR) + "/plans/search-gpt3-175b-512xh100.yaml", cat);
  std::vector<scenario::Scenario> feasible;
  Search() {
    for (std::size_t i = 0; i < planner::point_count(plan); ++i)
      if (auto p = planner::build_point(plan, i, cat); p.scenario)
        feasible.push_back(std::move(*p.scenario));
  }
};

const Search& search() {
  static const Search s;
  return s;
}

void Estimate(benchmark::State& state) {
  const auto& s = search();
  std::size_t i = 0;
  for (auto _ : state) {
    auto r = estimate::estimated_result(s.feasible[i], s.cat);
    benchmark::DoNotOptimize(r.metrics.step_time_s);
    i = (i + 1) % s.feasible.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["configurations"] = static_cast<double>(s.feasible.size());
}
BENCHMARK(Estimate)->Unit(benchmark::kMicrosecond);

// The same configurations under NCCL's own choice (workload.communication.algorithm: auto): each
// collective's algorithm and protocol picked at its size, one set of closed forms per protocol.
void EstimateNcclChoice(benchmark::State& state) {
  const auto& s = search();
  std::vector<scenario::Scenario> tuned = s.feasible;
  for (auto& sc : tuned)
    sc.workload.collective_algorithm = "auto";
  std::size_t i = 0;
  for (auto _ : state) {
    auto r = estimate::estimated_result(tuned[i], s.cat);
    benchmark::DoNotOptimize(r.metrics.step_time_s);
    i = (i + 1) % tuned.size();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(EstimateNcclChoice)->Unit(benchmark::kMicrosecond);

void BuildAndEstimate(benchmark::State& state) {
  const auto& s = search();
  const auto total = planner::point_count(s.plan);
  std::size_t i = 0;
  for (auto _ : state) {
    auto p = planner::build_point(s.plan, i, s.cat);
    if (p.scenario) {
      auto r = estimate::estimated_result(*p.scenario, s.cat);
      benchmark::DoNotOptimize(r.metrics.step_time_s);
    }
    i = (i + 1) % total;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["points"] = static_cast<double>(total);
}
BENCHMARK(BuildAndEstimate)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
