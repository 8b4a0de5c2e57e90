// Raw traffic on a scenario's fabric (`dpusim traffic`, docs/traffic.md): the flows of a traffic file
// on the cluster a run of the scenario builds, each timed from its start to its last byte. Links are
// shared max-min; with the scenario's `congestion:` section each RDMA flow is then stretched by what
// DCQCN and PFC leave of its ports (sim/plan/congestion_analysis), as a training run's transfers are.
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/input/traffic_file.hpp"
#include "sim/offload/variant.hpp"
#include "sim/plan/congestion_analysis.hpp"
#include "sim/report/link_usage.hpp"
#include "sim/scenario/scenario.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dpusim::run {

struct FlowTiming {
  double start_s = 0;       // when its first byte may leave (the file's start)
  double end_s = 0;         // when its last byte arrived
  double uncongested_s = 0; // its completion time with links shared max-min (no PFC, no DCQCN)
  [[nodiscard]] double fct_s() const { return end_s - start_s; }
};

struct TrafficResult {
  std::vector<FlowTiming> flows;       // one per flow of the file (background flows: their stop time)
  std::vector<FlowTiming> collectives; // one per collective group, from its start to its last rank's end
  double makespan_s = 0;               // the last flow's or collective's end
  bool congestion = false;             // the scenario's congestion section applied (RDMA variant)
  std::string control;                 // the scenario's congestion setting, applied or not (kernel TCP)
  plan::CongestionSummary summary;
  std::vector<report::LinkUsage> links; // every link some flow crossed, busiest first
  std::string device;                   // NIC or DPU carrying inter-node traffic
  int hosts = 0;                        // GPUs of the cluster (the file's hosts)
  int gpus_per_node = 0;
};

/// GPUs of the scenario's cluster: the hosts a traffic file names.
int traffic_hosts(const scenario::Scenario& s, const catalog::Catalog& cat);

/// Simulates the file's flows. `progress` (tasks done, tasks) as the simulator reports them.
TrafficResult run_traffic(const scenario::Scenario& s, const catalog::Catalog& cat,
                          const offload::Variant& variant, const input::Traffic& traffic,
                          const std::string& calibration = {},
                          const std::function<void(std::size_t, std::size_t)>& progress = {});

} // namespace dpusim::run
