#include "sim/estimate/input_estimate.hpp"

#include "sim/model/plan_size.hpp"

#include <algorithm>

namespace dpusim::estimate {

double input_load_s(const scenario::Scenario& s, const scenario::Hardware& hw, const datapath::DataPath& path,
                    const topology::ClusterLayout& layout) {
  const auto& w = s.workload;
  const auto& dc = *w.data;
  const auto& p = w.parallelism;
  const double bytes = w.micro_batch * dc.sample.si();
  const double decode = w.micro_batch * dc.decode.si();
  // Replicas whose loaders run at once, and those on replica 0's node (a large run simulates replica
  // 0's alone, whose loaders then meet no others).
  const bool one = model::representative_replica(s);
  const int per_node = layout.node.gpus;
  const int node0 = workload::replica_group(p, 0, 0).front() / per_node;
  int on_node = 0;
  for (int d = 0; d < (one ? 1 : p.dp); ++d)
    on_node += workload::replica_group(p, d, 0).front() / per_node == node0 ? 1 : 0;
  const int loaders = one ? 1 : p.dp;
  double t = 0;
  if (bytes > 0) {
    const auto& st = s.cluster.storage;
    const double sharing = std::max(1.0, static_cast<double>(loaders) / std::max(1, st.servers));
    t = std::max(t, bytes * sharing / st.read_rate.si());
    t = std::max(t, bytes * sharing / layout.storage.link.si());
    t = std::max(t, bytes / layout.node.nic_line_rate.si());
    for (const auto& work : path.storage_read(bytes, st.client_connections)) {
      const int threads = std::max(1, work.threads);
      if (work.processor == datapath::Processor::host_cpu) {
        // Every loader of the node shares its connections (one core each).
        const double share =
            std::max(1.0, static_cast<double>(on_node) * threads / std::max(1, st.client_connections));
        t = std::max(t, work.core_s / threads * share);
      } else if (const auto& arm = hw.arm_for(offload::Function::storage)) {
        t = std::max(t,
                     work.core_s / threads * std::max(1.0, static_cast<double>(threads) / arm->cores.value));
      }
    }
  }
  if (decode > 0) {
    const double share =
        std::max(1.0, static_cast<double>(on_node) * dc.workers / std::max(1, hw.node_host_cores()));
    t = std::max(t, decode / dc.workers * share);
  }
  return t;
}

} // namespace dpusim::estimate
