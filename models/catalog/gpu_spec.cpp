#include "models/catalog/gpu_spec.hpp"

#include "models/catalog/entry_reader.hpp"

#include <filesystem>

namespace dpusim::catalog {

GpuSpec read_gpu(EntryReader& r, const std::string& directory) {
  using namespace units;
  GpuSpec g;
  g.name = r.name();
  g.description = r.description();
  auto peak = r.map().required("peak", "dense tensor-core peaks per precision").as_map();
  {
    auto get = [&](std::string_view key) {
      auto [node, cite] = r.value_and_citation(peak.required(key, "a compute rate such as 989TFLOPS"));
      return Cited<FlopRate>{node.as_quantity<FlopRate>(), cite};
    };
    g.peak_bf16 = get("bf16");
    g.peak_fp16 = get("fp16");
    if (auto n = peak.optional("fp8")) {
      auto [node, cite] = r.value_and_citation(*n);
      g.peak_fp8 = Cited<FlopRate>{node.as_quantity<FlopRate>(), cite};
    }
    peak.finish();
  }
  g.memory = r.quantity<Bytes>("memory");
  g.context_memory = r.optional_quantity<Bytes>("context_memory");
  g.hbm_bandwidth = r.quantity<DataRate>("hbm_bandwidth");
  g.hbm_efficiency = r.number("hbm_efficiency", 0.05, 1.0);
  g.nvlink_bandwidth = r.quantity<DataRate>("nvlink_bandwidth");
  g.nvlink_collective_efficiency = r.number("nvlink_collective_efficiency", 0.05, 1.0);
  g.nvls_efficiency = r.number("nvls_efficiency", 0.0, 1.0);
  g.pcie_bandwidth = r.quantity<DataRate>("pcie_bandwidth");
  g.kernel_floor = r.quantity<Seconds>("kernel_floor");
  g.sms = r.optional_number("sms", 1, 1 << 16);
  g.tdp = r.quantity<Power>("tdp");
  g.idle_power = r.optional_quantity<Power>("idle_power");
  g.interruptions = read_interruptions(r, "interruptions");
  auto gemm = r.map().required("gemm", "the measured GEMM throughput table").as_map();
  const auto table = gemm.required("table");
  g.gemm_table_file = table.as_string();
  g.gemm_table_cite = r.citation_from_keys(gemm.required("table_source", "source keys of the table"));
  if (auto c = gemm.optional("ceiling")) {
    auto [node, cite] = r.value_and_citation(*c);
    g.gemm_ceiling = Cited<FlopRate>{node.as_quantity<FlopRate>(), cite};
  }
  gemm.finish();
  const std::string path = (std::filesystem::path(directory) / g.gemm_table_file).string();
  if (!std::filesystem::exists(path))
    table.fail("no such GEMM table file next to the entry: " + path);
  g.gemm = compute::GemmTable::load_csv(path);
  if (g.gemm_ceiling)
    g.gemm = g.gemm.scaled(g.gemm_ceiling->value / g.gemm.best());
  return g;
}

} // namespace dpusim::catalog
