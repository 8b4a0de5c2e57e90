// RoCE congestion (congestion.cpp): the setting a scenario's congestion: section names, and the
// transfers it stretches. See docs/models/congestion.md.
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/offload/variant.hpp"
#include "sim/plan/congestion_analysis.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/scenario.hpp"

#include <string>

namespace dpusim::model {

struct CongestionConfig {
  std::string control;           // a catalog congestion entry: DCQCN's parameters, or PFC alone
  bool storage_separate = false; // storage and checkpoints in a PFC priority of their own
};

/// The PFC class of a task (of `category`, from the plan's TaskInfo) (plan::CongestionAnalysis::apply):
/// storage reads and checkpoint writes are RoCE where the variant's storage client is not the host's
/// (NVMe-oF/GPUDirect Storage from the NIC, SNAP on the DPU), in their own class when the scenario separates
/// them; other transfers as CongestionAnalysis::default_class says.
int traffic_class(const CongestionConfig& c, const offload::Variant& v, const engine::Task& t,
                  plan::TaskCategory category);

/// The scenario's congestion setting (null: congestion not modelled, links shared max-min).
const CongestionConfig* congestion_of(const scenario::Scenario& s);

/// Notes and values of the run: what congestion cost per step (against the same iteration shared
/// max-min on the same platform) and the ports that paused or marked most.
void add_congestion_report(const CongestionConfig& c, const plan::CongestionSummary& summary,
                           const topology::Topology& topo, double step_s, double uncongested_step_s,
                           report::VariantResult& r);

} // namespace dpusim::model
