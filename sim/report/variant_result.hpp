// The outcome of simulating one variant of a scenario, as passed from a simulation process to the
// command that gathers the variants, and as written to CSV.
#pragma once

#include "sim/metrics/iteration_metrics.hpp"
#include "sim/report/column.hpp"
#include "sim/scenario/hardware.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dpusim::report {

/// One of the fabric's hottest links in a run that models congestion (docs/models/congestion.md).
struct HotLink {
  std::string link;            // "src->dst"
  std::string tier;            // "nic-leaf", "leaf-spine", ...
  double mean_utilisation = 0; // bytes / (capacity x step time)
  double peak_utilisation = 0; // the fullest use one transfer made of it
  double pause_fraction = 0;   // of the time its sender was paused (PFC)
  double ecn_marked = 0;       // of its packets (DCQCN)
};

struct VariantResult {
  std::string scenario;
  std::string variant;
  std::string device;          // NIC or DPU carrying inter-node traffic
  std::string placement;       // function=site for each function, ';'-separated
  bool on_dpu = false;         // the device is the scenario's DPU
  int host_cores = 0;          // per node
  int arm_cores = 0;           // per node, all DPUs
  std::uint64_t seed = 0;      // the job's draw (Scenario::seed)
  std::uint64_t step_seed = 0; // the step's draws (Scenario::step_draw_seed)
  int nodes = 0;
  int gpus = 0;
  metrics::IterationMetrics metrics;
  double tp_collective_s = 0; // one tensor-parallel all-reduce, simulated once and reused
  int tp_collectives_reused = 0;
  double ep_collective_s = 0; // one expert-parallel all-to-all, simulated once and reused
  int ep_collectives_reused = 0;
  double cp_collective_s = 0; // one context-parallel key/value all-gather, simulated once and reused
  int cp_collectives_reused = 0;
  std::size_t activities = 0; // SimGrid activities simulated
  std::size_t routes = 0;
  double simulation_wall_s = 0;
  std::vector<scenario::CalibratedValue> calibrated;
  std::string gpu_performance; // which GPU performance figures applied, and how far they are validated
  std::vector<std::string> notes;
  std::vector<HotLink> hot_links; // with congestion: the busiest and the most paused fabric links
  // Other tenants on the fabric: "" (none met the job), "shared" or "dpu_qos" (guaranteed share).
  std::string isolation;
  double guarantee = 0;
  // Values a model adds to the result, by column name, in the order they were set.
  std::vector<std::pair<std::string, double>> values;

  void set_value(const std::string& name, double v);
  /// A model's value, 0 where it set none.
  [[nodiscard]] double value(std::string_view name) const;
};

/// YAML text (used between processes).
std::string serialize(const VariantResult& r);
VariantResult deserialize(const std::string& text);

/// CSV: one header row, units in the column names, stable column order; the models' columns follow the
/// core metrics.
/// The result's identity (scenario, variant, device, host cores, seed) and calibration: what a result
/// says of itself before anything is run.
VariantResult identity_of(const scenario::Scenario& s, const offload::Variant& variant,
                          const scenario::Hardware& hw);

std::string csv_header(const std::vector<Column>& model_columns);
std::string csv_row(const VariantResult& r, double speedup_vs_baseline,
                    const std::vector<Column>& model_columns);

} // namespace dpusim::report
