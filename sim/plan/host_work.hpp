// The tools the models that add host-side work to an iteration share (the input pipeline, checkpoints,
// agents, other tenants' traffic; each lives in sim/model/): adding a task to the plan, moving bytes
// between a storage server and a node's memory, and booking a storage client's CPU work.
#pragma once

#include "sim/plan/iteration_extension.hpp"
#include "sim/plan/iteration_plan.hpp"

#include <map>
#include <vector>

namespace dpusim::plan {

class HostWork {
public:
  HostWork(platform::RouteRegistry& routes, const HostSide& host, IterationPlan& plan)
      : routes_(routes), hosts_(routes.hosts()), host_(host), plan_(plan) {}

  [[nodiscard]] const platform::HostMap& hosts() const { return hosts_; }
  /// Where a model asks for the routes its flows take and the limiters its loads need.
  [[nodiscard]] platform::RouteRegistry& routes() { return routes_; }
  [[nodiscard]] const HostSide& host() const { return host_; }
  [[nodiscard]] IterationPlan& plan() { return plan_; }

  engine::TaskId add(engine::Task t, TaskInfo i);
  /// Bytes between a storage server and host memory of `node` over NIC `nic`: directly, or under SNAP
  /// through the DPU's Arm cores (and its internal PCIe) on the way: the tray's front-end DPU's where the
  /// storage port is one, else the DPU in NIC slot `nic`.
  void storage_flows(engine::Task& t, engine::HostIndex server, engine::HostIndex cpu, int node, int nic,
                     double bytes, bool write);
  /// The storage client's CPU work on `node`: a host client's threads each on a core of the host CPU
  /// of the tray of `nics` and on that host's connection limiter; under SNAP, every DPU in `nics` runs its
  /// own, so the work is split evenly over each one's Arm cores, `threads` cores (SNAP's) on every DPU (or,
  /// with front-end DPUs, on the one of the tray of `nics`: one per tray, whatever the NICs). `i`
  /// records which of `t`'s loads they are (`client_from`, `client_loads`, `client_on_arm`), for the OS noise
  /// on those cores.
  void storage_client_work(engine::Task& t, TaskInfo& i, const std::vector<datapath::CpuWork>& works,
                           int node, const std::vector<int>& nics);

private:
  /// The limiter standing for a host CPU's storage client connections (created on first use).
  engine::HostIndex storage_client(engine::HostIndex cpu);

  platform::RouteRegistry& routes_;
  const platform::HostMap& hosts_;
  const HostSide& host_;
  IterationPlan& plan_;
  std::map<engine::HostIndex, engine::HostIndex> storage_client_; // by host CPU: its client's limiter
};

} // namespace dpusim::plan
