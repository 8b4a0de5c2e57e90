#include "sim/plan/host_work.hpp"

#include "sim/plan/plan_tasks.hpp"
#include "sim/topology/topology.hpp"

#include <algorithm>

namespace dpusim::plan {

engine::TaskId HostWork::add(engine::Task t, TaskInfo i) {
  const auto id = plan_.graph.add(std::move(t));
  plan_.info.push_back(std::move(i));
  return id;
}

void HostWork::storage_flows(engine::Task& t, engine::HostIndex server, engine::HostIndex cpu, int node,
                             int nic, double bytes, bool write) {
  std::vector<engine::HostIndex> hops{server};
  if (host_.path->storage_on_frontend())
    hops.push_back(hosts_.frontend_arm(node, hosts_.tray_of(cpu)));
  else if (host_.path->storage_through_arm())
    hops.push_back(hosts_.arm(node, nic));
  hops.push_back(cpu);
  if (write)
    std::reverse(hops.begin(), hops.end());
  for (std::size_t h = 0; h + 1 < hops.size(); ++h) {
    (void)routes_.route_hosts(hops[h], hops[h + 1], nic);
    t.flows.push_back({hops[h], hops[h + 1], bytes});
  }
}

void HostWork::storage_client_work(engine::Task& t, TaskInfo& i, const std::vector<datapath::CpuWork>& works,
                                   int node, const std::vector<int>& nics) {
  i.client_from = static_cast<int>(t.loads.size());
  for (const auto& work : works) {
    const bool arm = work.processor == datapath::Processor::dpu_arm;
    i.client_on_arm = arm;
    if (arm && host_.path->storage_on_frontend()) {
      // SNAP on the front-end DPU of the tray whose host the bytes come from or go to: one per tray.
      const auto dpu =
          hosts_.frontend_arm(node, hosts_.topology().tray_of_nic(nics.empty() ? 0 : nics.front()));
      for (int th = 0; th < work.threads; ++th)
        t.loads.push_back({dpu, work.core_s / work.threads});
    } else if (arm) {
      // One core per polling thread of each DPU's SNAP, where they share the Arm cores with whatever
      // else runs there.
      const double share =
          work.core_s / (static_cast<double>(work.threads) * static_cast<double>(nics.size()));
      for (const int nic : nics)
        for (int th = 0; th < work.threads; ++th)
          t.loads.push_back({hosts_.arm(node, nic), share});
    } else {
      // The client runs on the host CPU of the tray whose NICs carry its bytes.
      const auto cpu = hosts_.cpu_of_nic(node, nics.empty() ? 0 : nics.front());
      const double share = work.core_s / work.threads;
      for (int th = 0; th < work.threads; ++th) {
        t.loads.push_back({cpu, share});
        t.loads.push_back({storage_client(cpu), share});
      }
    }
    (arm ? i.arm_core_s : i.host_core_s)[static_cast<std::size_t>(work.function)] += work.core_s;
  }
  i.client_loads = static_cast<int>(t.loads.size()) - i.client_from;
}

engine::HostIndex HostWork::storage_client(engine::HostIndex cpu) {
  const auto it = storage_client_.find(cpu);
  if (it != storage_client_.end())
    return it->second;
  return storage_client_[cpu] = routes_.add_limiter(1.0, host_.storage_connections);
}

} // namespace dpusim::plan
