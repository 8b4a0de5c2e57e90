// RoCE congestion on the flow level (docs/models/congestion.md, "How the simulator drives them"): each
// RDMA transfer's flows on their routes, at the rates the ports upstream of each switch port deliver to
// it; the egress ports they overload, what DCQCN's fluid model makes of each (utilisation, queue, ECN
// marking) and what PFC pauses upstream (each ingress port feeding an overloaded egress for the share of
// its arrivals the egress cannot serve, and every flow crossing it: congestion spreading). Each flow then
// moves at its share of what its ports have left; the run stretches each flow by its own factor.
#pragma once

#include "models/catalog/congestion_spec.hpp"
#include "sim/engine/task_graph.hpp"
#include "sim/platform/route_registry.hpp"

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace dpusim::plan {

/// What one switch port met over the transfers that crossed it (the worst transfer's values).
struct PortCongestion {
  std::int32_t link = 0;     // topology edge id
  double pause_fraction = 0; // of the transfer's time its upstream sender was paused (ingress side)
  double marking = 0;        // ECN-marked share of its packets (egress side, DCQCN)
  double utilisation = 1;    // what DCQCN's rate control leaves of its capacity (egress side)
  double queue_bytes = 0;    // DCQCN's mean queue (egress side)
};

struct CongestionSummary {
  int transfers = 0;                            // RDMA transfers over the fabric analysed
  int slowed = 0;                               // of which congestion stretched a flow
  double worst_factor = 1;                      // the largest stretch of a flow
  std::string worst_label;                      // its task's label, where known
  std::map<std::int32_t, PortCongestion> ports; // ports that paused, marked or lost capacity
  /// Port rates (bytes/s) at which DCQCN's marking starts at or above XOFF: (Kmin, XOFF) in bytes. PFC
  /// pauses there before ECN marks anything, so the rate control does nothing.
  std::map<long long, std::pair<double, double>> unmarked;
};

/// A transfer (or other tenants' background flows) as the uncongested run timed it.
struct ActiveTransfer {
  const engine::Task* task = nullptr;
  double duration = 0; // seconds it took with links shared max-min
  std::string label;
  double done = 1; // the share of its bytes moved (below 1 for background flows stopped with the graph)
  /// Its PFC priority: 0 the job's, 1 storage's own where storage runs in a class of its own; -1 not
  /// RoCE (kernel TCP, lossy): left out.
  int traffic_class = 0;
};

class CongestionAnalysis {
public:
  /// `capacity` gives a topology edge's rate in bytes/s as the platform simulates it (after faults).
  CongestionAnalysis(const catalog::CongestionSpec& spec, platform::RouteRegistry& routes,
                     std::function<double(std::int32_t)> capacity);

  /// For transfers that run together, how much longer each flow of each takes with congestion (1: no
  /// longer; one entry per flow of the task): their flows at the rates the uncongested run gave them, the
  /// switch egress ports their senders overload, DCQCN's and PFC's answer there and upstream; a flow
  /// slows by the least share it gets of a port that pauses or lost capacity.
  std::vector<std::vector<double>> flow_factors(const std::vector<ActiveTransfer>& together);
  /// Per transfer, its slowest flow's factor.
  std::vector<double> factors(const std::vector<ActiveTransfer>& together);
  /// Stretches every flow of every RDMA transfer of `graph` by its factor among the transfers running at
  /// the transfer's midpoint in `timings` (the uncongested run of the same graph), where it exceeds 0.1%;
  /// `labels` names tasks. True when it stretched any.
  /// `traffic_class` gives each task's class (ActiveTransfer::traffic_class); by default
  /// default_class.
  bool apply(engine::TaskGraph& graph, const std::vector<engine::TaskTiming>& timings,
             const std::function<std::string(engine::TaskId)>& labels = {},
             const std::function<int(engine::TaskId)>& traffic_class = {});
  /// A transfer with CPU work coupled to it runs over kernel TCP (-1); others, and other tenants'
  /// background flows, are RoCE in the job's class (0).
  static int default_class(const engine::Task& t);

  [[nodiscard]] const CongestionSummary& summary() const { return summary_; }
  /// Forgets what it recorded (its DCQCN steady states are kept).
  void reset() { summary_ = {}; }

private:
  struct Dcqcn {
    double utilisation = 1;
    double pause_fraction = 0;
    double marking = 0;
    double queue = 0;
    double k_min = 0; // bytes
    double xoff = 0;  // bytes
  };
  /// DCQCN's steady state at a port (`flows` flows offering `offered` each into `capacity`, bytes/s).
  const Dcqcn& dcqcn_at(double capacity, int flows, double offered, double feedback_delay);
  /// How much longer than at the port's full rate the port takes to serve what arrives over `lasts`
  /// seconds, the flows starting at their line rate: the steady state's 1/u and the start-up transient.
  double dcqcn_stretch(double capacity, int flows, double offered, double feedback_delay, double lasts);
  [[nodiscard]] bool is_switch(topology::VertexId v) const;

  const catalog::CongestionSpec& spec_;
  platform::RouteRegistry& routes_;
  std::function<double(std::int32_t)> capacity_;
  CongestionSummary summary_;
  std::map<std::tuple<long long, int, long long, long long>, Dcqcn> dcqcn_cache_;
  std::map<std::tuple<long long, int, long long, long long, long long>, double> stretch_cache_;
};

} // namespace dpusim::plan
