// One collective alone on a scenario's cluster over a sweep of message sizes, as nccl-tests measures it
// (`dpusim nccl-tests`, docs/nccl-tests.md): the same hardware, fabric, routing and offload variant a
// training run of the scenario gets, and each size's collective simulated on its own, one after
// another on one platform.
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/offload/variant.hpp"
#include "sim/plan/collective_lowering.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/scenario.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::run {

/// The operations nccl-tests has that dpusim simulates (its binaries all_reduce_perf, ...).
enum class SweepOp {
  all_reduce,
  all_gather,
  reduce_scatter,
  alltoall,
  sendrecv,
  broadcast,
  reduce,
  gather,
  scatter
};
inline constexpr std::string_view kSweepOps[] = {"all_reduce", "all_gather", "reduce_scatter",
                                                 "alltoall",   "sendrecv",   "broadcast",
                                                 "reduce",     "gather",     "scatter"};
/// From or to a root (nccl-tests' root 0, the first rank): a broadcast, a reduce, a gather, a scatter.
inline bool rooted(SweepOp op) {
  return op == SweepOp::broadcast || op == SweepOp::reduce || op == SweepOp::gather || op == SweepOp::scatter;
}
/// A gather or a scatter: nccl-tests runs it as grouped sends to (from) the root, S/n a rank
/// (src/gather.cu, src/scatter.cu), which NCCL's tuner does not weigh.
inline bool root_sends(SweepOp op) {
  return op == SweepOp::gather || op == SweepOp::scatter;
}
std::string_view sweep_op_name(SweepOp op);
/// The operation named as nccl-tests names its test (all_reduce, ...); nullopt for another name.
std::optional<SweepOp> parse_sweep_op(std::string_view name);
/// nccl-tests' bus bandwidth factor (its doc/PERFORMANCE.md): busbw = algbw x factor on n ranks.
double bus_bandwidth_factor(SweepOp op, int ranks);

struct SweepOptions {
  SweepOp op = SweepOp::all_reduce;
  /// NCCL_ALGO: the algorithm of every size; nullopt: at each size the one NCCL's tuner picks
  /// (models/collectives/nccl_tuner.hpp) among those dpusim simulates.
  std::optional<plan::CollectiveAlgorithm> algorithm;
  /// NCCL_PROTO: the protocol of every size; nullopt: at each size the one NCCL's tuner picks for the
  /// algorithm (Simple for an algorithm the tuner does not weigh: hierarchical, all-to-all, send/recv).
  std::optional<catalog::NcclProtocol> protocol;
  /// NCCL_NVLS_ENABLE: false keeps NVLink SHARP out (an NVLS asked for then runs as the ring).
  bool nvls_enable = true;
  /// NCCL_IB_QPS_PER_CONNECTION: queue pairs each connection spreads its bytes over (each hashed on its
  /// own path); nullopt: the scenario's (workload.communication.qps_per_connection), else the catalog's.
  std::optional<int> qps_per_connection;
  std::vector<double> sizes; // bytes, as nccl-tests counts them for the op (docs/nccl-tests.md)
  int nodes = 0;             // the first `nodes` nodes of the cluster
  int gpus_per_node = 0;     // the first GPUs of each
  std::string calibration;   // profile path overriding the scenario's, empty for none
};

struct SweepRow {
  double bytes = 0;
  double time_s = 0; // one operation, from its first rank's start to its last rank's end
  catalog::NcclProtocol protocol = catalog::NcclProtocol::simple;
  /// As NCCL's tuner names what it picked ("ring", "tree", "nvls", "nvls-tree"), or the algorithm asked
  /// for; an algorithm that does not apply runs as the ring, as NCCL falls back.
  std::string algorithm;
};

struct SweepResult {
  int ranks = 0;
  std::string device;    // NIC or DPU carrying inter-node traffic
  std::string algorithm; // asked for, or "nccl" where the tuner picks per size (each row says which)
  std::string profile;   // the calibration profile's path, empty for none
  std::vector<scenario::CalibratedValue> calibrated; // what the profile gave, and whether it was taken
  std::vector<SweepRow> rows;
};

/// Simulates the sweep, calling `progress` (sizes done, sizes) after each size. Throws
/// std::invalid_argument where the ranks do not fit the cluster.
SweepResult run_collective_sweep(const scenario::Scenario& s, const catalog::Catalog& cat,
                                 const offload::Variant& variant, const SweepOptions& options,
                                 const std::function<void(std::size_t, std::size_t)>& progress = {});

} // namespace dpusim::run
