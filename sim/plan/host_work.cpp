#include "sim/plan/host_work.hpp"

#include "sim/plan/plan_tasks.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

namespace dpusim::plan {

engine::TaskId HostWork::add(engine::Task t, TaskInfo i) {
  const auto id = plan_.graph.add(std::move(t));
  plan_.info.push_back(std::move(i));
  return id;
}

void HostWork::data_loader(const ReplicaInput& in, std::vector<engine::TaskId>& finals) {
  const auto& dc = *host_.data;
  const auto& path = *host_.path;
  const int d = in.replica;
  const int m = static_cast<int>(in.forwards.size());
  const int first_gpu = in.first_gpu;
  const auto gpu_host = platform_.gpu(first_gpu);
  const int node = platform_.node_of(gpu_host);
  const int per_node = platform_.topology().layout().node.gpus;
  const int nic = platform_.topology().nic_of_gpu(first_gpu % per_node);
  const auto cpu = platform_.cpu(node);
  const double samples = in.micro_batch;
  const double bytes = samples * dc.sample.si();
  const double decode = samples * dc.decode.si();
  if (bytes <= 0 && decode <= 0)
    return;
  engine::TaskId previous = -1;
  for (int k = 0; k < m; ++k) {
    engine::Task t = task_of(engine::TaskKind::transfer);
    TaskInfo i = make_info(TaskCategory::data_load, fmt::format("load mb{}", k + dc.prefetch));
    i.dp = d;
    i.stage = 0;
    i.micro = k;
    i.gpus = {first_gpu};
    i.bytes = bytes;
    i.weight = in.weight;
    if (bytes > 0) {
      const int servers = platform_.storage_servers();
      const auto server = platform_.storage((d * m + k) % servers);
      storage_flows(t, server, cpu, node, nic, bytes, false);
      t.loads.push_back({server, bytes / host_.storage_read_rate});
    }
    // Workers decode their share, one core each. A host storage client receives over the node's few
    // TCP connections, each driven by one core and shared by every loader of the node (a limiter
    // with one core per connection caps them together); an offloaded client's work runs on the Arm
    // cores (SNAP) or not at all (NVMe-oF over RDMA).
    i.host_core_s[static_cast<std::size_t>(CpuUse::data_loading)] += decode;
    if (decode > 0)
      for (int wk = 0; wk < dc.workers; ++wk)
        t.loads.push_back({cpu, decode / dc.workers});
    const int connections = host_.storage_connections;
    if (bytes > 0)
      storage_client_work(t, i, path.storage_read(bytes, connections), node, {nic});
    const auto id = add(std::move(t), std::move(i));
    if (previous >= 0)
      plan_.graph.depend(previous, id);
    if (const auto slot = in.slots[static_cast<std::size_t>(k)]; slot >= 0)
      plan_.graph.depend(slot, id);
    if (k + dc.prefetch < m) {
      const auto consumer = in.forwards[static_cast<std::size_t>(k + dc.prefetch)];
      plan_.graph.depend(id, consumer);
      plan_.info[static_cast<std::size_t>(consumer)].data_from = id;
    }
    previous = id;
  }
  finals.push_back(previous);
}

void HostWork::storage_flows(engine::Task& t, engine::HostIndex server, engine::HostIndex cpu, int node,
                             int nic, double bytes, bool write) {
  std::vector<engine::HostIndex> hops{server};
  if (host_.path->storage_through_arm())
    hops.push_back(platform_.arm(node, nic));
  hops.push_back(cpu);
  if (write)
    std::reverse(hops.begin(), hops.end());
  for (std::size_t h = 0; h + 1 < hops.size(); ++h) {
    (void)platform_.route_hosts(hops[h], hops[h + 1], nic);
    t.flows.push_back({hops[h], hops[h + 1], bytes});
  }
}

void HostWork::storage_client_work(engine::Task& t, TaskInfo& i, const std::vector<offload::CpuWork>& works,
                                   int node, const std::vector<int>& nics) {
  for (const auto& work : works) {
    const bool arm = work.processor == offload::Processor::dpu_arm;
    for (int th = 0; th < work.threads; ++th) {
      const double share = work.core_s / work.threads;
      if (arm) {
        t.loads.push_back({platform_.arm(node, nics[static_cast<std::size_t>(th) % nics.size()]), share});
      } else {
        t.loads.push_back({platform_.cpu(node), share});
        t.loads.push_back({storage_client(node), share});
      }
    }
    (arm ? i.arm_core_s : i.host_core_s)[static_cast<std::size_t>(work.function)] += work.core_s;
  }
}

engine::HostIndex HostWork::storage_client(int node) {
  const auto it = storage_client_.find(node);
  if (it != storage_client_.end())
    return it->second;
  return storage_client_[node] = platform_.add_limiter(1.0, host_.storage_connections);
}

void HostWork::checkpoint(std::vector<engine::TaskId>& finals) {
  const auto& path = *host_.path;
  const int per_node = platform_.topology().layout().node.gpus;
  const int servers = platform_.storage_servers();
  const double bytes = host_.checkpoint_bytes_per_gpu;
  const std::vector<engine::TaskId> before = host_.checkpoint_async ? std::vector<engine::TaskId>{} : finals;
  for (int n = 0; n < platform_.nodes(); ++n) {
    const auto cpu = platform_.cpu(n);
    engine::Task t = task_of(engine::TaskKind::transfer);
    TaskInfo i = make_info(TaskCategory::checkpoint, fmt::format("checkpoint node {}", n));
    for (int g = 0; g < per_node; ++g) {
      const int gpu = n * per_node + g;
      const auto server = platform_.storage(gpu % servers);
      const int nic = platform_.topology().nic_of_gpu(g);
      storage_flows(t, server, cpu, n, nic, bytes, true);
      t.loads.push_back({server, bytes / host_.storage_write_rate});
      i.gpus.push_back(gpu);
    }
    const double node_bytes = bytes * per_node;
    i.bytes = node_bytes;
    std::vector<int> nics(static_cast<std::size_t>(platform_.topology().layout().node.nics));
    std::iota(nics.begin(), nics.end(), 0);
    storage_client_work(t, i, path.storage_write(node_bytes, host_.storage_connections), n, nics);
    const auto id = add(std::move(t), std::move(i));
    for (auto b : before)
      plan_.graph.depend(b, id);
    finals.push_back(id);
  }
}

void HostWork::cross_traffic() {
  const int n = platform_.tenants();
  const int leaves = platform_.topology().num_leaves();
  if (n == 0 || leaves < 2)
    return;
  const int per_leaf = n / leaves;
  constexpr double kForever = 1e18; // bytes: stopped when the iteration ends
  for (int l = 0; l < leaves; ++l)
    for (int i = 0; i < per_leaf; ++i) {
      const auto src = platform_.tenant(l * per_leaf + i);
      const auto dst = platform_.tenant(((l + 1) % leaves) * per_leaf + i);
      (void)platform_.route_hosts(src, dst);
      engine::Task t = task_of(engine::TaskKind::background);
      t.flows.push_back({src, dst, kForever});
      add(std::move(t), make_info(TaskCategory::cross_traffic, fmt::format("tenant flow {}.{}", l, i)));
    }
}

void HostWork::agents() {
  if (host_.agent_cores <= 0)
    return;
  const bool on_arm = host_.agent_site == offload::Site::dpu_arm;
  const int dpus = platform_.topology().layout().node.nics;
  constexpr double kForever = 1e12; // core-seconds: stopped when the iteration ends
  auto spawn = [&](engine::HostIndex where, double cores, int node) {
    const int entries = static_cast<int>(std::ceil(cores - 1e-9));
    for (int e = 0; e < entries; ++e) {
      engine::Task t = task_of(engine::TaskKind::background);
      t.loads.push_back({where, kForever});
      t.loads.push_back({platform_.add_limiter(cores / entries), kForever}); // caps it at its share
      TaskInfo i = make_info(TaskCategory::agent, fmt::format("agents node {}", node));
      (on_arm ? i.arm_core_s : i.host_core_s)[static_cast<std::size_t>(CpuUse::agents)] = kForever;
      add(std::move(t), std::move(i));
    }
  };
  for (int n = 0; n < platform_.nodes(); ++n) {
    if (on_arm) {
      for (int k = 0; k < dpus; ++k)
        spawn(platform_.arm(n, k), host_.agent_cores * host_.arm_cores_per_host_core / dpus, n);
    } else {
      spawn(platform_.cpu(n), host_.agent_cores, n);
    }
  }
}

} // namespace dpusim::plan
