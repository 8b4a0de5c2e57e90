// NCCL-like collectives: the algorithm (ring, double binary tree, hierarchical, NVLS) and the socket
// transport's threads; the efficiencies a profile may calibrate (docs/models/collectives.md).
#include "sim/model/model.hpp"
#include "sim/model/pass.hpp"
#include "sim/report/variant_result.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

constexpr std::array<std::string_view, 5> kAlgorithms{"ring", "tree", "hierarchical", "nvls", "auto"};
constexpr int kMaxSocketThreads = 64;
constexpr std::string_view kMoreThreads = "socket-threads-doubled";
/// A setting binds the run where the next value gains at least this share of the step.
constexpr double kBinds = 0.01;

class CollectivesModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "collectives"; }
  [[nodiscard]] std::string_view summary() const override {
    return "NCCL-like ring, tree, hierarchical and NVLS collectives; socket transport threads";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"workload.communication", "section", "none", "how collectives run"},
        {"workload.communication.algorithm", "choice", "ring",
         "ring | tree | hierarchical | nvls (NCCL_ALGO, in NCCL's Simple protocol) | auto (each collective "
         "in the "
         "algorithm and protocol NCCL's tuner picks at its size)"},
        {"workload.communication.socket_threads", "count", "the catalog's",
         "cores per socket-transport connection (NCCL_SOCKET_NTHREADS x NSOCKS)"},
        {"workload.communication.qps_per_connection", "count", "the catalog's",
         "RDMA queue pairs per connection, each hashed on its own by ECMP (NCCL_IB_QPS_PER_CONNECTION)"},
        {"workload.communication.pxn", "bool", "the catalog's",
         "sends to another rail go over NVLink to the GPU on that rail first (NCCL_PXN_DISABLE=0)"},
        {"workload.communication.alltoall_parts", "count", "1",
         "the activities each node's all-to-all (or DeepEP dispatch) sends are simulated as, split by "
         "destination node (at most one a node): 1 is fast but moves a node's sends at their slowest "
         "flow's pace, up to 24% slow where ECMP collides; one a destination node (e.g. 1024) moves as "
         "the flows do, at a solver cost that grows with their square (docs/models/collectives.md)"},
    };
  }
  [[nodiscard]] std::vector<CalibrationBinding> calibration() const override {
    return {
        {"collective.network_efficiency", "nic.collective_efficiency",
         [](scenario::Hardware& hw, double v, const catalog::Citation& c) {
           hw.nic.collective_efficiency = {v, c};
           return true;
         }},
        {"collective.nvlink_efficiency", "gpu.nvlink_collective_efficiency",
         [](scenario::Hardware& hw, double v, const catalog::Citation& c) {
           hw.gpu.nvlink_collective_efficiency = {v, c};
           return true;
         }},
        // The three together set the library's step latencies (estimate::take_measured_latency, once the
        // whole profile is in: it says there whether they were taken).
        {"collective.allreduce_latency", "collective.step_latency_network (or _nvlink)",
         [](scenario::Hardware& hw, double v, const catalog::Citation& c) {
           hw.measured_allreduce.latency = catalog::Cited<units::Seconds>{units::Seconds::from_si(v), c};
           return true;
         }},
        {"collective.allreduce_ranks", "collective.step_latency_network (or _nvlink)",
         [](scenario::Hardware& hw, double v, const catalog::Citation& /*c*/) {
           hw.measured_allreduce.ranks = static_cast<int>(v);
           return true;
         }},
        {"collective.allreduce_nodes", "collective.step_latency_network (or _nvlink)",
         [](scenario::Hardware& hw, double v, const catalog::Citation& /*c*/) {
           hw.measured_allreduce.nodes = static_cast<int>(v);
           return true;
         }},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& /*cat*/, Problems& out) const override {
    const auto& w = s.workload;
    if (std::find(kAlgorithms.begin(), kAlgorithms.end(), w.collective_algorithm) == kAlgorithms.end())
      out.push_back({"workload.communication.algorithm",
                     fmt::format("\"{}\" is not valid; valid values: ring, tree, hierarchical, nvls, auto",
                                 w.collective_algorithm)});
    if (w.socket_threads && (*w.socket_threads < 1 || *w.socket_threads > 64))
      out.push_back({"workload.communication.socket_threads",
                     fmt::format("must be between 1 and 64, found {}", *w.socket_threads)});
    if (w.qps_per_connection && (*w.qps_per_connection < 1 || *w.qps_per_connection > 128))
      out.push_back({"workload.communication.qps_per_connection",
                     fmt::format("must be between 1 and 128, found {}", *w.qps_per_connection)});
  }
  [[nodiscard]] std::vector<report::Output> outputs() const override {
    return {{"socket_threads_doubled_step_s", "s",
             "the noise-free step with twice the socket transport's threads (host-TCP variants)", false,
             false}};
  }
  /// Where the kernel's TCP carries the collectives, each connection is driven by as many cores as the
  /// socket transport has threads: the step at twice as many says whether that setting binds the run.
  [[nodiscard]] std::vector<PassRequest> passes(const PassContext& run) const override {
    const int threads = run.hardware.collective.socket_threads.value;
    if (!run.explain || run.path.transport() == offload::Transport::rdma || threads >= kMaxSocketThreads)
      return {};
    PassRequest r;
    r.name = kMoreThreads;
    r.hardware = [threads](scenario::Hardware& hw) {
      hw.collective.socket_threads.value = std::min(kMaxSocketThreads, 2 * threads);
    };
    r.undrawn = true;
    return {r};
  }
  void account(const PassContext& run, const PassSteps& steps, report::VariantResult& r) const override {
    if (!steps.passes.contains(std::string(kMoreThreads)))
      return;
    const double step = steps.base.clean_s;
    const double more = steps.pass(std::string(kMoreThreads)).clean_s;
    r.set_value("socket_threads_doubled_step_s", more);
    const double gain = 1 - more / std::max(step, 1e-12);
    const int threads = run.hardware.collective.socket_threads.value;
    const int doubled = std::min(kMaxSocketThreads, 2 * threads);
    const char* noise_free = steps.base.drawn_s ? ", both without the noise draws" : "";
    r.notes.push_back(fmt::format(
        "sensitivity: {} workload.communication.socket_threads: with {} socket threads per connection "
        "instead "
        "of {}, the step takes {:.4f} s instead of {:.4f} s ({:+.1f}%{}){}",
        gain >= kBinds ? "bound by" : "not bound by", doubled, threads, more, step, -100 * gain, noise_free,
        gain >= kBinds ? "; each TCP connection is driven by that many host cores" : ""));
  }
  /// Under NCCL's own choice, what its tuner picked for each kind of collective, so that a user sees
  /// what the run ran (and can pin it with the algorithm).
  void report(const RunView& run, report::VariantResult& r) const override {
    if (run.iteration.nccl_picks.empty()) // nothing lowered as `tuned`: the scenario pinned an algorithm
      return;
    r.notes.push_back(fmt::format("NCCL's choice (workload.communication.algorithm: auto): {}",
                                  plan::describe_picks(run.iteration.nccl_picks)));
  }
  void configure(const scenario::Scenario& s, scenario::Hardware& hw) const override {
    if (s.workload.socket_threads) {
      hw.collective.socket_threads.value = *s.workload.socket_threads;
      hw.collective.socket_threads.cite = {catalog::Citation::Kind::assumption,
                                           "set by the scenario (workload.communication.socket_threads)"};
    }
    if (s.workload.qps_per_connection)
      hw.collective.qps_per_connection = {
          *s.workload.qps_per_connection,
          {catalog::Citation::Kind::assumption,
           "set by the scenario (workload.communication.qps_per_connection)"}};
    if (s.workload.pxn)
      hw.collective.pxn = {
          *s.workload.pxn,
          {catalog::Citation::Kind::assumption, "set by the scenario (workload.communication.pxn)"}};
  }
};

} // namespace

std::unique_ptr<Model> make_collectives_model() {
  return std::make_unique<CollectivesModel>();
}

} // namespace dpusim::model
