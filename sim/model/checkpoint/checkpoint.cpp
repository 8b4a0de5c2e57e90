// Periodic checkpoints: every node writes its GPUs' shards to the storage servers through the storage
// client's placement (host client, SNAP on the Arm cores, or the NIC), synchronously or overlapping the
// next iteration. The run simulates an iteration that writes one beside the plain one.
#include "sim/model/checkpoint/checkpoint.hpp"

#include "sim/model/model.hpp"
#include "sim/model/pass.hpp"
#include "sim/plan/host_work.hpp"
#include "sim/plan/plan_tasks.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/rank_memory.hpp"
#include "sim/topology/topology.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

/// Every node writes its GPUs' checkpoint shards to the storage servers (GPU i of the cluster to server
/// i mod servers), through the storage client's placement: from host memory over the node's NICs with
/// the host client's per-byte CPU (split over its connections), via the Arm cores of each DPU the shards
/// leave through (SNAP, on the cores it polls with), or by the NIC
/// (GPUDirect Storage / NVMe-oF over RDMA). The servers' media write at `storage_write_rate` each.
/// A synchronous checkpoint starts after everything in `finals`; an asynchronous one at once.
void add_checkpoint(plan::HostWork& work, std::vector<engine::TaskId>& finals) {
  const auto& hosts = work.hosts();
  const auto& host = work.host();
  auto& iteration = work.plan();
  const auto& path = *host.path;
  const int per_node = hosts.topology().layout().node.gpus;
  const int servers = hosts.storage_servers();
  const double bytes = host.checkpoint_bytes_per_gpu;
  const std::vector<engine::TaskId> before = host.checkpoint_async ? std::vector<engine::TaskId>{} : finals;
  // Each host writes its own GPUs' shards: a single server, or each tray of a rack.
  const auto& topo = hosts.topology();
  for (int n = 0; n < hosts.nodes(); ++n)
    for (int tray = 0; tray < hosts.trays(); ++tray) {
      const auto cpu = hosts.cpu(n, tray);
      engine::Task t = plan::task_of(engine::TaskKind::transfer);
      plan::TaskInfo i =
          plan::make_info(plan::TaskCategory::checkpoint,
                          hosts.trays() == 1 ? fmt::format("checkpoint node {}", n)
                                             : fmt::format("checkpoint node {} tray {}", n, tray));
      std::vector<int> nics; // the NICs (DPUs) the host's shards leave through, each once
      for (int g = 0; g < per_node; ++g) {
        if (topo.tray_of_gpu(g) != tray)
          continue;
        const int gpu = n * per_node + g;
        const auto server = hosts.storage(gpu % servers);
        const int nic = hosts.topology().nic_of_gpu(g);
        work.storage_flows(t, server, cpu, n, nic, bytes, true);
        t.loads.push_back({server, bytes / host.storage_write_rate});
        i.gpus.push_back(gpu);
        if (std::find(nics.begin(), nics.end(), nic) == nics.end())
          nics.push_back(nic);
      }
      if (i.gpus.empty())
        continue; // a tray whose GPUs the scenario leaves unused
      const double node_bytes = bytes * static_cast<double>(i.gpus.size());
      i.bytes = node_bytes;
      // A host client writes over the node's connections; under SNAP each of those DPUs writes its share
      // with the cores its SNAP polls with.
      work.storage_client_work(t, i, path.storage_write(node_bytes, host.storage_connections), n, nics);
      const auto id = work.add(std::move(t), std::move(i));
      for (auto b : before)
        iteration.graph.depend(b, id);
      finals.push_back(id);
    }
}

constexpr std::string_view kPass = "checkpoint";

class CheckpointModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "checkpoint"; }
  [[nodiscard]] std::string_view summary() const override {
    return "periodic checkpoint writes to the storage servers, synchronous or asynchronous";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"workload.checkpoint", "section", "none (no checkpoint simulated)", "periodic checkpoints"},
        {"workload.checkpoint.every", "count or duration", "required",
         "iterations between checkpoints (500), or the time between them (30min): as many whole iterations "
         "of each variant's step as fit in it, at least one"},
        {"workload.checkpoint.mode", "choice", "sync",
         "sync (GPUs wait) | async (overlaps the next iteration)"},
        {"workload.checkpoint.size", "bytes", "weights + optimizer state of the largest stage, sharded",
         "bytes per GPU"},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto& ck = s.workload.checkpoint;
    if (!ck)
      return;
    if (ck->every_time) {
      const double t = ck->every_time->si();
      if (!(t >= 1.0 && t <= 366 * 86400.0))
        out.push_back({"workload.checkpoint.every",
                       fmt::format("a time between checkpoints must be from 1 s to a year, found {}",
                                   units::format(*ck->every_time))});
    } else if (ck->every < 1) {
      out.push_back({"workload.checkpoint.every", fmt::format("must be at least 1, found {}", ck->every)});
    }
    if (s.cluster.storage.servers == 0)
      out.push_back(
          {"workload.checkpoint",
           "checkpoints are written to storage servers: add cluster.storage {servers, link, read_rate}",
           "cluster"});
  }
  [[nodiscard]] std::vector<report::Column> columns() const override {
    return {
        {"checkpoint_step_s", [](const report::VariantResult& r) { return r.metrics.checkpoint_step_s; }},
        {"checkpoint_overhead_s",
         [](const report::VariantResult& r) { return r.metrics.checkpoint_overhead_s; }},
        {"step_with_checkpoints_s",
         [](const report::VariantResult& r) { return r.metrics.step_with_checkpoints_s; }},
    };
  }
  /// The iteration that also writes a checkpoint, on the same platform. A synchronous checkpoint that
  /// nothing overlaps (no input pipeline, agents or tenants, and no draws or stretch in the run) starts
  /// when the plain iteration ends: its writes alone are simulated, and their time added to the plain
  /// step (tested equal to the whole iteration's).
  [[nodiscard]] std::vector<PassRequest> passes(const PassContext& run) const override {
    const auto& s = run.scenario;
    if (!s.workload.checkpoint)
      return {};
    PassRequest r;
    r.name = kPass;
    r.build = [&s](PassBuild& b) {
      b.host = writing_checkpoint(s, b.host);
      b.host_tasks_only = b.plain && !s.workload.checkpoint->async && !s.workload.data &&
                          s.cluster.services.agent_cores == 0 && s.cluster.tenants.flows == 0;
    };
    r.drawn_only = true;
    r.reported_apart = "the iteration that writes a checkpoint";
    return {r};
  }
  void account(const PassContext& run, const PassSteps& steps, report::VariantResult& r) const override {
    const auto& s = run.scenario;
    if (!s.workload.checkpoint)
      return;
    const auto& ck = steps.pass(std::string(kPass));
    add_checkpoint_step(s, ck.host_tasks_only ? r.metrics.step_time_s + ck.step_s() : ck.step_s(), r.metrics);
  }
  void add_tasks(plan::HostWork& work, const plan::IterationContext& ctx) const override {
    if (ctx.host.checkpoint_bytes_per_gpu > 0)
      add_checkpoint(work, ctx.finals);
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto& s = run.scenario;
    if (!s.workload.checkpoint)
      return;
    const double bytes = checkpoint_bytes_per_gpu(s.workload);
    const double gib = 1024.0 * 1024.0 * 1024.0;
    r.notes.push_back(fmt::format(
        "{} checkpoint every {}: {:.2f} GiB per GPU ({:.1f} GiB per node) to {} "
        "storage servers; the iteration that writes it takes {:.4f} s instead of {:.4f} s, "
        "{:.4f} s per step over the interval",
        s.workload.checkpoint->async ? "asynchronous" : "synchronous",
        s.workload.checkpoint->every_time
            ? fmt::format("{} ({} iterations of this variant's {:.4f} s step)",
                          s.workload.checkpoint->describe(),
                          s.workload.checkpoint->iterations(r.metrics.step_time_s), r.metrics.step_time_s)
            : s.workload.checkpoint->describe(),
        bytes / gib, bytes * run.topology.layout().node.gpus / gib, s.cluster.storage.servers,
        r.metrics.checkpoint_step_s, r.metrics.step_time_s, r.metrics.checkpoint_overhead_s));
  }
};

} // namespace

double checkpoint_bytes_per_gpu(const scenario::WorkloadConfig& w) {
  if (w.checkpoint && w.checkpoint->size)
    return w.checkpoint->size->si();
  auto sharded = w;
  sharded.zero_stage = 3;
  const auto m = scenario::peak_rank_memory(sharded);
  // ZeRO-3's memory counts the layer gathered in flight beside the shard: it is not saved.
  const double gathered = 2.0 * workload::layer_parameter_count(w.model, w.parallelism.ep) / w.parallelism.tp;
  return m.weights - gathered + m.optimizer;
}

plan::HostSide writing_checkpoint(const scenario::Scenario& s, plan::HostSide host) {
  host.checkpoint_bytes_per_gpu = checkpoint_bytes_per_gpu(s.workload);
  host.checkpoint_async = s.workload.checkpoint && s.workload.checkpoint->async;
  host.storage_write_rate = s.cluster.storage.write_rate.si();
  return host;
}

void add_checkpoint_step(const scenario::Scenario& s, double checkpoint_step_s,
                         metrics::IterationMetrics& m) {
  m.checkpoint_step_s = checkpoint_step_s;
  m.checkpoint_overhead_s =
      std::max(0.0, checkpoint_step_s - m.step_time_s) / s.workload.checkpoint->iterations(m.step_time_s);
  m.step_with_checkpoints_s = m.step_time_s + m.checkpoint_overhead_s;
}

std::unique_ptr<Model> make_checkpoint_model() {
  return std::make_unique<CheckpointModel>();
}

} // namespace dpusim::model
