#include "models/catalog/gpu_spec.hpp"

#include "models/catalog/entry_reader.hpp"

#include <filesystem>
#include <fmt/format.h>

namespace dpusim::catalog {

namespace {
/// gemm.speedup: per low-precision tensor-core format the GPU has, its best GEMM over the best bf16 GEMM;
/// where the entry gives none, the peaks' ratio.
void read_speedups(EntryReader& r, yaml::Map& gemm, GpuSpec& g) {
  using workload::Precision;
  std::optional<yaml::Map> given;
  if (auto n = gemm.optional("speedup")) {
    given = n->as_map();
    given->declare({"fp8", "mxfp8", "nvfp4"});
    for (auto& [key, node] : given->items())
      if (g.peak(key == "fp8"     ? Precision::fp8
                 : key == "mxfp8" ? Precision::mxfp8
                                  : Precision::nvfp4) == nullptr)
        node.fail(fmt::format("a speed-up for {}, but the entry's peak has no {}", key, key));
  }
  for (const auto p : workload::kPrecisions) {
    auto& out = g.gemm_speedup.at(static_cast<std::size_t>(p));
    const auto* peak = g.peak(p);
    if (peak == nullptr)
      continue;
    if (!workload::low_precision(p)) {
      out = Cited<double>{1.0, Citation{Citation::Kind::assumption, "16-bit: the bf16 table itself"}};
      continue;
    }
    if (p == Precision::fp8_cs) // the tensor cores of fp8
      continue;
    const auto key = workload::tensor_core_format(p);
    std::optional<yaml::Node> node;
    if (given)
      node = given->optional(key);
    if (node) {
      auto [value, cite] = r.value_and_citation(*node);
      out = Cited<double>{value.as_number(0.5, 16.0), cite};
    } else {
      out = Cited<double>{peak->value / g.peak_bf16.value,
                          Citation{Citation::Kind::assumption,
                                   fmt::format("no measured {} GEMM in the entry: the peaks' ratio", key)}};
    }
  }
  g.gemm_speedup.at(static_cast<std::size_t>(Precision::fp8_cs)) =
      g.gemm_speedup.at(static_cast<std::size_t>(Precision::fp8));
  if (given)
    given->finish();
}
} // namespace

const Cited<units::FlopRate>* GpuSpec::peak(workload::Precision p) const {
  using workload::Precision;
  switch (p) {
  case Precision::bf16:
    return &peak_bf16;
  case Precision::fp16:
    return &peak_fp16;
  case Precision::fp8:
  case Precision::fp8_cs:
    return peak_fp8 ? &*peak_fp8 : nullptr;
  case Precision::mxfp8:
    return peak_mxfp8 ? &*peak_mxfp8 : nullptr;
  case Precision::nvfp4:
    return peak_nvfp4 ? &*peak_nvfp4 : nullptr;
  }
  return nullptr;
}

std::string GpuSpec::precisions() const {
  std::string out;
  for (const auto p : workload::kPrecisions)
    if (peak(p) != nullptr)
      out += (out.empty() ? "" : ", ") + std::string(workload::precision_name(p));
  return out;
}

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
    auto optional = [&](std::string_view key) -> std::optional<Cited<FlopRate>> {
      if (auto n = peak.optional(key)) {
        auto [node, cite] = r.value_and_citation(*n);
        return Cited<FlopRate>{node.as_quantity<FlopRate>(), cite};
      }
      return std::nullopt;
    };
    g.peak_fp8 = optional("fp8");
    g.peak_mxfp8 = optional("mxfp8");
    g.peak_nvfp4 = optional("nvfp4");
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
  g.compute_capability = r.number("compute_capability", 1.0, 99.0);
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
  read_speedups(r, gemm, g);
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
