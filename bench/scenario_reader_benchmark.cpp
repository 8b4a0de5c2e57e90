// How fast the scenario reader takes a long list of offload variants: N named variants (each checked
// against the previous ones for duplicates) read and checked, the read refused past 1,000 variants as it
// must be. Near-linear time shows as a near-constant time per variant across N (items_per_second:
// variants per second); a lookup among the previous variants would grow it N-fold. Run:
// build/bench/dpusim_bench_scenario_reader.
#include "models/base/input_error.hpp"
#include "models/base/yaml_reader.hpp"
#include "sim/input/scenario_loader.hpp"

#include <benchmark/benchmark.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

using namespace dpusim;

const catalog::Catalog& the_catalog() {
  static const auto cat =
      catalog::Catalog::load(std::filesystem::path(DPUSIM_SOURCE_DIR) / "models/catalog/data");
  return cat;
}

/// The quickstart scenario with `n` named variants in place of its own.
std::string scenario_with_variants(int n) {
  std::ifstream in(std::filesystem::path(DPUSIM_SOURCE_DIR) / "scenarios/examples/quickstart.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const std::string own = "offload: {baseline: host-tcp, variants: [rdma-nic, dpu]}\n";
  std::string list = "offload:\n  baseline: rdma-nic\n  variants:\n";
  for (int i = 0; i < n; ++i)
    list += fmt::format("    - {{name: v{}, placement: rdma-nic}}\n", i);
  const auto at = text.find(own);
  if (at == std::string::npos)
    throw std::runtime_error("scenarios/examples/quickstart.yaml no longer has " + own);
  return text.replace(at, own.size(), list);
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
