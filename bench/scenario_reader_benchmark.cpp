// How fast the scenario reader takes a long list of offload variants: N named variants (each looked up
// among the previous ones for duplicates) read and checked, the read refused past 1,000 variants as it
// must be. Linear time shows as a constant time per variant across N (items_per_second: variants per
// second). Run: build/bench/dpusim_bench_scenario_reader.
#include "models/core/input_error.hpp"
#include "models/core/yaml_reader.hpp"
#include "sim/input/scenario_loader.hpp"

#include <benchmark/benchmark.h>
#include <filesystem>
#include <fmt/format.h>
#include <string>

namespace {

using namespace dpusim;

const catalog::Catalog& the_catalog() {
  static const auto cat =
      catalog::Catalog::load(std::filesystem::path(DPUSIM_SOURCE_DIR) / "models/catalog/data");
  return cat;
}

std::string scenario_with_variants(int n) {
  std::string text = R"(name: t
cluster:
  nodes: 2
  node: dgx-h100
  fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}
workload:
  model: gpt3-13b
  seq_len: 2048
  global_batch: 64
  micro_batch: 1
  parallelism: {tp: 8, dp: 2}
offload:
  baseline: rdma-nic
  variants:
)";
  for (int i = 0; i < n; ++i)
    text += fmt::format("    - {{name: v{}, placement: rdma-nic}}\n", i);
  return text;
}

void ReadVariants(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  const auto text = scenario_with_variants(n);
  for (auto _ : state) {
    try {
      benchmark::DoNotOptimize(input::parse_scenario(yaml::parse_text(text, "bench.yaml"), the_catalog()));
    } catch (const InputError& e) {
      benchmark::DoNotOptimize(e.what()); // past 1,000 variants: refused, once all are read
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(ReadVariants)->Arg(1'000)->Arg(5'000)->Arg(19'000)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
