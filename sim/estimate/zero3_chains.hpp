// ZeRO-3 in the estimator: each layer's parameters are gathered before it runs (prefetched one layer
// ahead with overlap_param_gather) and its gradients reduce-scattered after its backward; each pipeline
// stage has one gather chain and one scatter chain over every tensor-parallel rank's data- and
// context-parallel group. The two kinds cross the same NICs: where a transfer meets one of the other
// kind in flight, the two share the NICs equally until the smaller has moved its bytes (a transfer's
// latency uses no bandwidth). A layer's reduce-scatter is booked once the next gather issued before it
// is, so that the gather it shares with is known.
#pragma once

#include "sim/estimate/stage_collectives.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>
#include <vector>

namespace dpusim::estimate {

/// Where a pipeline stage's GPUs stand in the estimator's schedule.
struct StageStream {
  double free_at = 0;             // when its stream is next free
  double last_compute = 0;        // the end of its last compute
  double before_last_compute = 0; // the end of the one before
};

class Zero3Chains {
public:
  /// `launch_s`: host CPU seconds to launch one kernel (the per-peer buffers' copies).
  Zero3Chains(const scenario::WorkloadConfig& w, StageCollectives& collectives, double launch_s);

  /// One layer task of stage `st`: its gather, its compute of `compute_s` (after `ready`, for an
  /// operation's first layer) on `stream`, and after a backward layer its gradients' reduce-scatter
  /// (pending until booked). Adds the transfers' host work to `host_core_s`. Returns the compute's end.
  double layer(int st, StageStream& stream, double ready, double compute_s, double params, int tensors,
               bool backward, double& host_core_s);
  /// Books stage `st`'s pending reduce-scatter, if any.
  void book_scatter(int st, double& host_core_s);

  [[nodiscard]] double gather_end(int st) const { return at(st).gather; }
  [[nodiscard]] double scatter_end(int st) const { return at(st).scatter; }
  /// The stage's time in gathers and reduce-scatters.
  [[nodiscard]] double comm_s(int st) const { return at(st).comm; }

private:
  struct PendingScatter {
    double issued = 0;
    double bytes = 0;
    int tensors = 0;
  };
  struct Chains {
    double gather = 0;
    double scatter = 0;
    double comm = 0;
    std::optional<PendingScatter> pending;
  };
  [[nodiscard]] const Chains& at(int st) const { return stages_[static_cast<std::size_t>(st)]; }
  /// Host seconds of one rank's copies to its peers' buffers (zero_per_peer_buffers) for `tensors`.
  [[nodiscard]] double peer_copies(int tensors) const;

  const scenario::WorkloadConfig& w_;
  StageCollectives& collectives_;
  double launch_s_;
  std::vector<Chains> stages_;
};

} // namespace dpusim::estimate
