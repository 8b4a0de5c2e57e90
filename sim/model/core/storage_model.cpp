// Storage servers the input pipeline reads from and checkpoints are written to: on the training leaves
// or on a storage fabric of their own, and the host storage client's TCP connections (NFS nconnect).
#include "models/core/unit_parse.hpp"
#include "sim/model/model.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"

#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

class StorageModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "storage"; }
  [[nodiscard]] std::string_view summary() const override {
    return "storage servers on the training fabric or a fabric of their own; the host storage client's "
           "connections";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"cluster.storage", "section", "none",
         "storage servers; needed by workload.data and workload.checkpoint"},
        {"cluster.storage.servers", "count", "required", "storage servers"},
        {"cluster.storage.link", "data rate", "required", "each server's network port"},
        {"cluster.storage.read_rate", "data rate", "required", "each server's media read throughput"},
        {"cluster.storage.write_rate", "data rate", "read_rate", "each server's media write throughput"},
        {"cluster.storage.client_connections", "count", "1",
         "TCP connections of a node's host storage client (NFS nconnect), one core each"},
        {"cluster.storage.fabric", "choice", "shared",
         "shared (servers on the training leaves) | separate (a storage switch of their own)"},
        {"cluster.storage.node_link", "data rate", "required with fabric: separate",
         "each node's storage port on the separate storage fabric"},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto& st = s.cluster.storage;
    if (st.servers < 0)
      out.push_back({"cluster.storage.servers", fmt::format("must be at least 1, found {}", st.servers)});
    if (st.client_connections < 1)
      out.push_back({"cluster.storage.client_connections",
                     fmt::format("must be at least 1, found {}", st.client_connections)});
    if (st.separate_fabric && st.node_link.si() <= 0)
      out.push_back({"cluster.storage.node_link",
                     "missing required key (expected each node's storage port on the "
                     "separate storage fabric, e.g. 200Gbps)"});
    if (!st.separate_fabric && st.node_link.si() > 0)
      out.push_back({"cluster.storage.node_link",
                     "a node's storage port belongs to a separate storage fabric: give fabric: separate"});
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto& s = run.scenario;
    if (!s.workload.data || s.workload.data->sample.si() <= 0 ||
        run.variant.placement[offload::Function::storage] != offload::Site::host)
      return;
    const int n = s.cluster.storage.client_connections;
    const auto cap = static_cast<double>(n) * run.hardware.cpu.storage_client_rate_per_core.value;
    const double busy = r.metrics.host_busy_cores_by_use[static_cast<std::size_t>(plan::CpuUse::storage)];
    if (busy > 0.9 * n)
      r.notes.push_back(
          fmt::format("the host storage client is at its limit: {} TCP connection{} per node "
                      "(cluster.storage.client_connections, NFS nconnect), each driven by one core, "
                      "read at most {} per node; {:.2f} cores were busy on it",
                      n, n == 1 ? "" : "s", units::format(cap), busy));
  }
};

} // namespace

std::unique_ptr<Model> make_storage_model() {
  return std::make_unique<StorageModel>();
}

} // namespace dpusim::model
