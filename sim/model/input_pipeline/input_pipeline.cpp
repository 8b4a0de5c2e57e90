// The input pipeline of each data-parallel replica: loader processes read each micro-batch's samples
// from the storage servers through the storage client's placement and decode them on host cores, a
// prefetch queue ahead of the GPUs (docs/models/host-functions.md).
#include "models/base/unit_parse.hpp"
#include "sim/model/model.hpp"
#include "sim/plan/host_work.hpp"
#include "sim/plan/plan_tasks.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/topology/topology.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

/// Replica's input pipeline in steady state: `prefetch` micro-batches were queued by the previous
/// iteration, so this iteration's forward pass m waits for load m - prefetch, and load k (which
/// produces micro-batch k + prefetch, possibly of the next iteration) may start once micro-batch k
/// leaves the queue. Each load reads its samples from a storage server through the storage client's
/// placement and decodes them on the loader's worker cores, all progressing together.
void add_loader(plan::HostWork& work, const plan::ReplicaInput& in, std::vector<engine::TaskId>& finals) {
  const auto& hosts = work.hosts();
  const auto& host = work.host();
  auto& iteration = work.plan();
  const auto& dc = *host.data;
  const auto& path = *host.path;
  const int d = in.replica;
  const int m = static_cast<int>(in.forwards.size());
  const int first_gpu = in.first_gpu;
  const auto gpu_host = hosts.gpu(first_gpu);
  const int node = hosts.node_of(gpu_host);
  const int per_node = hosts.topology().layout().node.gpus;
  const int nic = hosts.topology().nic_of_gpu(first_gpu % per_node);
  const auto cpu = hosts.cpu_of_gpu(first_gpu);
  const double samples = in.micro_batch;
  const double bytes = samples * dc.sample.si();
  const double decode = samples * dc.decode.si();
  if (bytes <= 0 && decode <= 0)
    return;
  // A task of this replica's loader for micro-batch k.
  const auto loader_info = [&](const char* what, int k) {
    plan::TaskInfo i =
        plan::make_info(plan::TaskCategory::data_load, fmt::format("{} mb{}", what, k + dc.prefetch));
    i.dp = d;
    i.stage = 0;
    i.micro = k;
    i.gpus = {first_gpu};
    i.weight = in.weight;
    return i;
  };
  engine::TaskId previous = -1;
  for (int k = 0; k < m; ++k) {
    engine::Task t = plan::task_of(engine::TaskKind::transfer);
    plan::TaskInfo i = loader_info("load", k);
    i.bytes = bytes;
    if (bytes > 0) {
      const int servers = hosts.storage_servers();
      const auto server = hosts.storage((d * m + k) % servers);
      work.storage_flows(t, server, cpu, node, nic, bytes, false);
      t.loads.push_back({server, bytes / host.storage_read_rate});
    }
    // Workers decode their share, one core each. A host storage client receives over the node's few
    // TCP connections, each driven by one core and shared by every loader of the node (a limiter
    // with one core per connection caps them together); an offloaded client's work runs on the cores
    // SNAP polls with on the loader's DPU, whatever the connections, or not at all (NVMe-oF over RDMA).
    i.host_core_s[static_cast<std::size_t>(plan::CpuUse::data_loading)] += decode;
    i.decode_from = static_cast<int>(t.loads.size());
    if (decode > 0)
      for (int wk = 0; wk < dc.workers; ++wk)
        t.loads.push_back({cpu, decode / dc.workers});
    i.decode_loads = static_cast<int>(t.loads.size()) - i.decode_from;
    const int connections = host.storage_connections;
    if (bytes > 0)
      work.storage_client_work(t, i, path.storage_read(bytes, connections), node, {nic});
    const auto id = work.add(std::move(t), std::move(i));
    // Each read waits for its latency before its bytes flow: the loaders read their share of the
    // micro-batch's samples one after another, all loaders at once (noise.storage_tail draws them).
    engine::TaskId first = id;
    if (bytes > 0 && host.storage_read_latency_s > 0) {
      const double reads = std::ceil(samples);
      const int readers = static_cast<int>(std::min<double>(dc.workers, reads));
      const int per_reader = static_cast<int>(std::ceil(reads / readers));
      engine::Task lat = plan::task_of(engine::TaskKind::delay);
      lat.delay_s = per_reader * host.storage_read_latency_s;
      plan::TaskInfo li = loader_info("read latency", k);
      li.tail_steps = per_reader;
      li.tail_hops = readers;
      first = work.add(std::move(lat), std::move(li));
      iteration.graph.depend(first, id);
    }
    if (previous >= 0)
      iteration.graph.depend(previous, first);
    if (const auto slot = in.slots[static_cast<std::size_t>(k)]; slot >= 0)
      iteration.graph.depend(slot, first);
    if (k + dc.prefetch < m) {
      const auto consumer = in.forwards[static_cast<std::size_t>(k + dc.prefetch)];
      iteration.graph.depend(id, consumer);
      iteration.info[static_cast<std::size_t>(consumer)].data_from = id;
    }
    previous = id;
  }
  finals.push_back(previous);
}

class InputPipelineModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "input-pipeline"; }
  [[nodiscard]] std::string_view summary() const override {
    return "each replica's loaders read samples from storage and decode them on host cores, queued ahead";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"workload.data", "section", "none (input loading not simulated)", "each replica's input pipeline"},
        {"workload.data.sample", "bytes", "required", "bytes read from storage per sample"},
        {"workload.data.decode", "duration", "required", "host core time to decode one sample"},
        {"workload.data.workers", "count", "required",
         "loader processes per data-parallel replica, one core each"},
        {"workload.data.prefetch", "count", "2", "micro-batches queued ahead of the GPUs"},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto& d = s.workload.data;
    if (!d)
      return;
    if (d->workers < 1)
      out.push_back({"workload.data.workers", fmt::format("must be at least 1, found {}", d->workers)});
    if (d->prefetch < 1)
      out.push_back({"workload.data.prefetch", fmt::format("must be at least 1, found {}", d->prefetch)});
    if (d->sample.si() > 0 && s.cluster.storage.servers == 0)
      out.push_back(
          {"workload.data",
           fmt::format("reading {} per sample needs storage servers: add cluster.storage {{servers, link, "
                       "read_rate}}",
                       units::format(d->sample)),
           "cluster"});
  }
  void add_tasks(plan::HostWork& work, const plan::IterationContext& ctx) const override {
    if (!ctx.host.data)
      return;
    for (int d = 0; d < ctx.replicas; ++d)
      add_loader(work, ctx.replica_input(d), ctx.finals);
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    if (run.representative && run.scenario.workload.data)
      r.notes.push_back("only one data-parallel replica's input pipeline was simulated: the loaders of other "
                        "replicas on the same node do not compete for its cores");
  }
};

} // namespace

std::unique_ptr<Model> make_input_pipeline_model() {
  return std::make_unique<InputPipelineModel>();
}

} // namespace dpusim::model
