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

#include <algorithm>
#include <optional>
#include <utility>
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

// Inline: the estimator calls them for every layer of every ZeRO-3 pass (the planner's hot path).

namespace zero3_detail {

/// A transfer of latency `lat` and `work` seconds at the full rate, starting at t0 beside a transfer of
/// the other kind that ends at `other_end` (at the full rate, were it alone): both ends.
inline std::pair<double, double> share(double t0, double lat, double work, double other_end) {
  const double bw = t0 + lat;
  const double rest = std::max(0.0, other_end - bw);
  if (rest <= 0)
    return std::pair{bw + work, other_end};
  return std::pair{bw + (work <= rest ? 2 * work : work + rest),
                   bw + (rest <= work ? 2 * rest : work + rest)};
}

} // namespace zero3_detail

inline Zero3Chains::Zero3Chains(const scenario::WorkloadConfig& w, StageCollectives& collectives,
                                double launch_s)
    : w_(w), collectives_(collectives), launch_s_(launch_s),
      stages_(static_cast<std::size_t>(w.parallelism.pp)) {}

inline double Zero3Chains::peer_copies(int tensors) const {
  const auto& p = w_.parallelism;
  return w_.zero_per_peer_buffers && tensors > 0 ? static_cast<double>(tensors) * p.dp * p.cp * launch_s_
                                                 : 0.0;
}

inline void Zero3Chains::book_scatter(int st, double& host_core_s) {
  auto& c = stages_[static_cast<std::size_t>(st)];
  if (!c.pending)
    return;
  const auto& p = w_.parallelism;
  const double bytes = c.pending->bytes;
  const auto& scatter = collectives_.cost(CollectiveKind::reduce_scatter, st, bytes);
  const double s0 = std::max(c.scatter, c.pending->issued);
  const auto [end, gather_end] = zero3_detail::share(s0, scatter.latency_s + peer_copies(c.pending->tensors),
                                                     bytes * scatter.s_per_byte, c.gather);
  c.scatter = end;
  c.gather = gather_end;
  c.comm += end - s0;
  host_core_s += scatter.host_core_s_per_byte * bytes + peer_copies(c.pending->tensors) * p.tp * p.dp * p.cp;
  c.pending.reset();
}

inline double Zero3Chains::layer(int st, StageStream& stream, double ready, double compute_s, double params,
                                 int tensors, bool backward, double& host_core_s) {
  auto& c = stages_[static_cast<std::size_t>(st)];
  const auto& p = w_.parallelism;
  const double gather_bytes = params * w_.param_gather_bytes();
  const auto& gather = collectives_.cost(CollectiveKind::all_gather, st, gather_bytes);
  const double wait = w_.param_gather_overlapped() ? stream.before_last_compute : stream.last_compute;
  if (c.pending && c.pending->issued < wait)
    book_scatter(st, host_core_s);
  const double g0 = std::max(c.gather, wait);
  const auto [gathered, scatter_end] = zero3_detail::share(g0, gather.latency_s + peer_copies(tensors),
                                                           gather_bytes * gather.s_per_byte, c.scatter);
  c.gather = gathered;
  c.scatter = scatter_end;
  host_core_s += gather.host_core_s_per_byte * params * w_.param_gather_bytes() +
                 peer_copies(tensors) * p.tp * p.dp * p.cp;
  book_scatter(st,
               host_core_s); // issued with the gather or after it: it shares the rest of the gather's time
  c.comm += c.gather - g0;
  const double start = std::max({stream.free_at, ready, c.gather});
  const double end = start + compute_s;
  stream.before_last_compute = stream.last_compute;
  stream.last_compute = end;
  stream.free_at = end;
  if (backward)
    c.pending = PendingScatter{end, params * w_.grad_bytes_per_param, tensors};
  return end;
}

} // namespace dpusim::estimate
