// Storage servers the input pipeline reads from and checkpoints are written to: on the training leaves
// or on a storage fabric of their own; the host storage client's TCP connections (NFS nconnect), and the
// Arm cores NVMe emulation (SNAP) polls with on each DPU.
#include "models/base/unit_parse.hpp"
#include "sim/datapath/data_path.hpp"
#include "sim/model/model.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/hardware.hpp"

#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

constexpr double kMaxReadLatencyS = 60; // one read; beyond a minute it is a failure, not a latency
constexpr double kMaxTailRatio = 1e5;   // p99 / median: a lognormal sigma of 5

/// What bounds SNAP: the cores it polls with on each DPU, where that figure comes from, and the most
/// they move.
std::string snap_note(const RunView& run) {
  const auto* frontend = run.hardware.frontend_dpu(offload::Function::storage);
  const auto& device = frontend != nullptr ? *frontend : run.hardware.nic;
  const auto& arm = *device.arm;
  const int k = run.path.snap_threads();
  const auto& cite = arm.snap_cores->cite;
  const std::string from = cite.kind == catalog::Citation::Kind::source
                               ? cite.text.substr(0, cite.text.find(" ("))
                               : (cite.text.rfind("set by the scenario", 0) == 0
                                      ? "cluster.storage.snap_cores"
                                      : fmt::format("an assumption of the catalog's {}", device.name));
  return fmt::format("SNAP (storage on the Arm cores) polls with {} of each {}'s {} Arm cores{} ({}; "
                     "cluster.storage.snap_cores sets its core mask): at most {} per DPU, shared with "
                     "whatever else runs on those cores; cluster.storage.client_connections applies to a "
                     "host client only",
                     k, device.name, arm.cores.value,
                     frontend != nullptr ? " (each tray's storage port, beside the training NICs)" : "", from,
                     units::format(static_cast<double>(k) * arm.storage_client_rate_per_core.value));
}

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
        {"cluster.storage.snap_cores", "count", "the catalog DPU's",
         "Arm cores of each DPU that NVMe emulation (SNAP) polls with (its SPDK core mask)"},
        {"cluster.storage.fabric", "choice", "shared",
         "shared (servers on the training leaves) | separate (a storage switch of their own)"},
        {"cluster.storage.node_link", "data rate", "required with fabric: separate (node_nic's line rate)",
         "each tray's storage port on the separate storage fabric"},
        {"cluster.storage.node_nic", "catalog NIC", "none (a plain port of node_link)",
         "with fabric: separate, the NIC or DPU of each tray's storage port (the front-end DPU beside the "
         "training NICs): a DPU's Arm cores run what is placed on dpu_arm among storage and agents"},
        {"cluster.storage.read_latency", "section", "none (or the calibration profile's)",
         "one sample read's latency before its bytes flow (each load waits for its loaders' reads)"},
        {"cluster.storage.read_latency.median", "duration", "required", "its median, e.g. 500us"},
        {"cluster.storage.read_latency.p99", "duration", "required",
         "its 99th percentile, at least the median (noise.storage_tail draws from it)"},
    };
  }
  [[nodiscard]] std::vector<CalibrationBinding> calibration() const override {
    using Hw = scenario::Hardware;
    using Cite = catalog::Citation;
    return {
        {"storage.read_latency_median", "storage.read_latency_median",
         [](Hw& hw, double v, const Cite& c) {
           hw.storage_read_latency_median = catalog::Cited<units::Seconds>{units::Seconds::from_si(v), c};
           return true;
         }},
        {"storage.read_latency_p99", "storage.read_latency_p99",
         [](Hw& hw, double v, const Cite& c) {
           hw.storage_read_latency_p99 = catalog::Cited<units::Seconds>{units::Seconds::from_si(v), c};
           return true;
         }},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    const auto& st = s.cluster.storage;
    if (st.servers < 0)
      out.push_back({"cluster.storage.servers", fmt::format("must be at least 1, found {}", st.servers)});
    if (st.client_connections < 1)
      out.push_back({"cluster.storage.client_connections",
                     fmt::format("must be at least 1, found {}", st.client_connections)});
    if (st.snap_cores) {
      const auto* dpu = s.cluster.dpu.empty() ? nullptr : cat.nic(s.cluster.dpu);
      const bool frontend = scenario::requirements(s, cat).on_frontend(offload::Function::storage);
      if (frontend)
        dpu = cat.nic(st.node_nic);
      if (*st.snap_cores < 1)
        out.push_back(
            {"cluster.storage.snap_cores", fmt::format("must be at least 1, found {}", *st.snap_cores)});
      else if (dpu != nullptr && dpu->arm && *st.snap_cores > dpu->arm->cores.value)
        out.push_back({"cluster.storage.snap_cores",
                       fmt::format("{} exceeds the {} Arm cores of a {}", *st.snap_cores,
                                   dpu->arm->cores.value, dpu->name),
                       frontend ? "cluster.storage.node_nic" : "cluster.dpu"});
    }
    if (st.separate_fabric && st.node_link.si() <= 0)
      out.push_back({"cluster.storage.node_link",
                     "missing required key (expected each node's storage port on the "
                     "separate storage fabric, e.g. 200Gbps)"});
    if (st.read_latency_median && st.read_latency_p99 &&
        !(st.read_latency_p99->si() >= st.read_latency_median->si()))
      out.push_back(
          {"cluster.storage.read_latency.p99",
           fmt::format("must be at least the median ({}), found {}", units::format(*st.read_latency_median),
                       units::format(*st.read_latency_p99))});
    else if (st.read_latency_median && st.read_latency_p99 &&
             !(st.read_latency_p99->si() <= kMaxTailRatio * st.read_latency_median->si()))
      out.push_back(
          {"cluster.storage.read_latency.p99",
           fmt::format("must be at most {:g} times the median ({}), found {}", kMaxTailRatio,
                       units::format(*st.read_latency_median), units::format(*st.read_latency_p99))});
    if (st.read_latency_median && !(st.read_latency_median->si() <= kMaxReadLatencyS))
      out.push_back({"cluster.storage.read_latency.median",
                     fmt::format("must be at most {:g} s, found {}", kMaxReadLatencyS,
                                 units::format(*st.read_latency_median))});
    if (!st.node_nic.empty()) {
      const auto* port = cat.nic(st.node_nic);
      if (!st.separate_fabric)
        out.push_back({"cluster.storage.node_nic",
                       "a tray's storage NIC belongs to a separate storage fabric: give fabric: separate"});
      else if (port != nullptr && st.node_link.si() > port->line_rate.value.si() * (1 + 1e-12))
        out.push_back({"cluster.storage.node_link",
                       fmt::format("{} exceeds the {}'s line rate of {}", units::format(st.node_link),
                                   port->name, units::format(port->line_rate.value)),
                       "cluster.storage.node_nic"});
    }
    if (!st.separate_fabric && st.node_link.si() > 0)
      out.push_back({"cluster.storage.node_link",
                     "a node's storage port belongs to a separate storage fabric: give fabric: separate"});
  }
  void configure(const scenario::Scenario& s, scenario::Hardware& hw) const override {
    // The scenario's read latency is of the user's storage servers; a profile's was measured wherever
    // the probe read (a local disk unless --storage-file named the training file system): the scenario's
    // takes precedence, and the profile's is then marked unused.
    if (const auto& st = s.cluster.storage; st.read_latency_median && st.read_latency_p99) {
      const catalog::Citation cite{catalog::Citation::Kind::assumption,
                                   "set by the scenario (cluster.storage.read_latency)"};
      hw.storage_read_latency_median = catalog::Cited<units::Seconds>{*st.read_latency_median, cite};
      hw.storage_read_latency_p99 = catalog::Cited<units::Seconds>{*st.read_latency_p99, cite};
      for (auto& cv : hw.calibrated)
        if (cv.used && cv.key.rfind("storage.read_latency", 0) == 0) {
          cv.used = false;
          cv.note = "the scenario's cluster.storage.read_latency takes precedence";
        }
    }
    const catalog::Cited<int> snap{
        s.cluster.storage.snap_cores.value_or(0),
        {catalog::Citation::Kind::assumption, "set by the scenario (cluster.storage.snap_cores)"}};
    if (s.cluster.storage.snap_cores && hw.nic.arm)
      hw.nic.arm->snap_cores = snap;
    if (s.cluster.storage.snap_cores && hw.storage_nic && hw.storage_nic->arm)
      hw.storage_nic->arm->snap_cores = snap;
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto& s = run.scenario;
    const auto site = run.variant.placement[offload::Function::storage];
    const bool reads = s.workload.data && s.workload.data->sample.si() > 0;
    if (site == offload::Site::dpu_arm && (reads || s.workload.checkpoint))
      r.notes.push_back(snap_note(run));
    if (!reads || site != offload::Site::host)
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
