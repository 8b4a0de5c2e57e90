// The host-side work of an iteration besides the training schedule: each replica's input pipeline
// (storage reads and decoding), checkpoint writes, infrastructure agents and other tenants' traffic.
// It adds its tasks to the iteration's plan, depending on the schedule's tasks where it feeds them.
#pragma once

#include "sim/plan/iteration_plan.hpp"

#include <map>
#include <vector>

namespace dpusim::plan {

/// What one data-parallel replica's input pipeline feeds.
struct ReplicaInput {
  int replica = 0;
  int first_gpu = 0; // the GPU whose node loads the replica's samples
  int micro_batch = 1;
  double weight = 1;                 // replicas this one stands for
  std::vector<engine::TaskId> slots; // by micro-batch: the task after which its queue slot frees (-1: none)
  std::vector<engine::TaskId> forwards; // by micro-batch: its first forward task
};

class HostWork {
public:
  HostWork(platform::PlatformBuilder& platform, const HostSide& host, IterationPlan& plan)
      : platform_(platform), host_(host), plan_(plan) {}

  /// Replica's input pipeline in steady state: `prefetch` micro-batches were queued by the previous
  /// iteration, so this iteration's forward pass m waits for load m - prefetch, and load k (which
  /// produces micro-batch k + prefetch, possibly of the next iteration) may start once micro-batch k
  /// leaves the queue. Each load reads its samples from a storage server through the storage client's
  /// placement and decodes them on the loader's worker cores, all progressing together.
  void data_loader(const ReplicaInput& in, std::vector<engine::TaskId>& finals);
  /// Every node writes its GPUs' checkpoint shards to the storage servers (GPU i of the cluster to server
  /// i mod servers), through the storage client's placement: from host memory over the node's NICs with
  /// the host client's per-byte CPU (split over its connections), via the Arm cores (SNAP), or by the NIC
  /// (GPUDirect Storage / NVMe-oF over RDMA). The servers' media write at `storage_write_rate` each.
  /// A synchronous checkpoint starts after everything in `finals`; an asynchronous one at once.
  void checkpoint(std::vector<engine::TaskId>& finals);
  /// Other tenants' bulk flows: endpoint i of each leaf sends to endpoint i of the next leaf until the
  /// iteration ends, routed by ECMP like any flow, limited by their endpoints' ports (Topology::build).
  void cross_traffic();
  /// Infrastructure agents on every node: background work of `agent_cores` host cores, on the host or
  /// (as more of the slower Arm cores) spread over the node's DPUs.
  void agents();

private:
  engine::TaskId add(engine::Task t, TaskInfo i);
  /// Bytes between a storage server and host memory of `node` over NIC `nic`: directly, or under SNAP
  /// through the DPU's Arm cores (and its internal PCIe) on the way.
  void storage_flows(engine::Task& t, engine::HostIndex server, engine::HostIndex cpu, int node, int nic,
                     double bytes, bool write);
  /// The storage client's CPU work on `node`: a host client's threads each on a host core and on the
  /// node's connection limiter; SNAP's on the Arm cores of the DPUs in `nics`, in turn.
  void storage_client_work(engine::Task& t, TaskInfo& i, const std::vector<offload::CpuWork>& works, int node,
                           const std::vector<int>& nics);
  /// The limiter standing for node n's host storage client connections (created on first use).
  engine::HostIndex storage_client(int node);

  platform::PlatformBuilder& platform_;
  const HostSide& host_;
  IterationPlan& plan_;
  std::map<int, engine::HostIndex> storage_client_; // by node: its storage client's connection limiter
};

} // namespace dpusim::plan
