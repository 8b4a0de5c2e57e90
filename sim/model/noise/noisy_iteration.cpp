// The noisy iteration: the sources' draws in their order (draws.hpp), and what the straggler wait is.
#include "sim/model/noise/draws.hpp"
#include "sim/model/noise/noise.hpp"
#include "sim/report/variant_result.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace dpusim::model {

std::optional<plan::IterationPlan> noisy_iteration(const NoiseConfig& n, const scenario::Scenario& s,
                                                   const plan::IterationPlan& clean,
                                                   const datapath::DataPath& path, const OsNoise* os,
                                                   double storage_sigma) {
  if (!n.any())
    return std::nullopt;
  if (!n.os_noise)
    os = nullptr;
  plan::IterationPlan noisy = clean;
  // One stream per source (draws.hpp), so that turning one on does not move the draws of another; the
  // sources draw in this order.
  Draws d(n, s);
  draw_rdma_tail(noisy, path, d);
  draw_hop_latencies(noisy, path, os, d);
  draw_storage_reads(noisy, storage_sigma, d);
  draw_loader_detours(noisy, os, d);
  draw_client_detours(noisy, os, d);
  draw_stalled_loads(noisy, d);
  draw_gpu_work(noisy, os, d);
  return noisy;
}

void add_straggler_wait(double noisy_step_s, double clean_step_s, report::VariantResult& r) {
  r.set_value("straggler_wait_s", std::max(0.0, noisy_step_s - clean_step_s));
}

void add_straggler_sources(const std::vector<std::pair<NoiseSource, double>>& alone, double clean_step_s,
                           report::VariantResult& r) {
  const double total = r.value("straggler_wait_s");
  double sum = 0;
  for (const auto& [src, step] : alone)
    sum += std::max(0.0, step - clean_step_s);
  for (const auto& [src, step] : alone) {
    const double own = std::max(0.0, step - clean_step_s);
    r.set_value(fmt::format("straggler_wait_{}_s", noise_source_name(src)),
                sum > 0 ? total * own / sum : (alone.size() == 1 ? total : 0.0));
  }
}

} // namespace dpusim::model
