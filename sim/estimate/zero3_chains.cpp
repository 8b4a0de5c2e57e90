#include "sim/estimate/zero3_chains.hpp"

#include <algorithm>
#include <utility>

namespace dpusim::estimate {

namespace {

/// A transfer of latency `lat` and `work` seconds at the full rate, starting at t0 beside a transfer of
/// the other kind that ends at `other_end` (at the full rate, were it alone): both ends.
std::pair<double, double> share(double t0, double lat, double work, double other_end) {
  const double bw = t0 + lat;
  const double rest = std::max(0.0, other_end - bw);
  if (rest <= 0)
    return std::pair{bw + work, other_end};
  return std::pair{bw + (work <= rest ? 2 * work : work + rest),
                   bw + (rest <= work ? 2 * rest : work + rest)};
}

} // namespace

Zero3Chains::Zero3Chains(const scenario::WorkloadConfig& w, StageCollectives& collectives, double launch_s)
    : w_(w), collectives_(collectives), launch_s_(launch_s),
      stages_(static_cast<std::size_t>(w.parallelism.pp)) {}

double Zero3Chains::peer_copies(int tensors) const {
  const auto& p = w_.parallelism;
  return w_.zero_per_peer_buffers && tensors > 0 ? static_cast<double>(tensors) * p.dp * p.cp * launch_s_
                                                 : 0.0;
}

void Zero3Chains::book_scatter(int st, double& host_core_s) {
  auto& c = stages_[static_cast<std::size_t>(st)];
  if (!c.pending)
    return;
  const auto& p = w_.parallelism;
  const double bytes = c.pending->bytes;
  const auto& scatter = collectives_.cost(CollectiveKind::reduce_scatter, st, bytes);
  const double s0 = std::max(c.scatter, c.pending->issued);
  const auto [end, gather_end] =
      share(s0, scatter.latency_s + peer_copies(c.pending->tensors), bytes * scatter.s_per_byte, c.gather);
  c.scatter = end;
  c.gather = gather_end;
  c.comm += end - s0;
  host_core_s += scatter.host_core_s_per_byte * bytes + peer_copies(c.pending->tensors) * p.tp * p.dp * p.cp;
  c.pending.reset();
}

double Zero3Chains::layer(int st, StageStream& stream, double ready, double compute_s, double params,
                          int tensors, bool backward, double& host_core_s) {
  auto& c = stages_[static_cast<std::size_t>(st)];
  const auto& p = w_.parallelism;
  const double gather_bytes = params * w_.param_gather_bytes();
  const auto& gather = collectives_.cost(CollectiveKind::all_gather, st, gather_bytes);
  const double wait = w_.param_gather_overlapped() ? stream.before_last_compute : stream.last_compute;
  if (c.pending && c.pending->issued < wait)
    book_scatter(st, host_core_s);
  const double g0 = std::max(c.gather, wait);
  const auto [gathered, scatter_end] =
      share(g0, gather.latency_s + peer_copies(tensors), gather_bytes * gather.s_per_byte, c.scatter);
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
