#include "models/workload/tp_comm_overlap.hpp"

#include <algorithm>

namespace dpusim::workload {

double ring_exchange_s(double gemm_s, double comm_s, int tp) {
  if (tp < 2)
    return gemm_s + comm_s;
  const double steps = tp - 1;
  return steps * std::max(gemm_s / tp, comm_s / steps) + gemm_s / tp;
}

double pipelined_s(double gemm_s, double comm_s, int splits, double sm_share) {
  const double n = std::max(1, splits);
  const double gemm = gemm_s / (1.0 - sm_share);
  return gemm / n + (n - 1) * std::max(gemm / n, comm_s / n) + comm_s / n;
}

double bulk_s(double gemm_s, double comm_s, double sm_share) {
  return std::max(gemm_s / (1.0 - sm_share), comm_s);
}

double forward_exposed_s(const TpOverlapGemms& g, const TpOverlapConfig& c, double half) {
  const double overlapped =
      ring_exchange_s(g.qkv, half, c.tp) + pipelined_s(g.proj, half, c.pipeline_splits, c.comm_sm_share) +
      ring_exchange_s(g.fc1, half, c.tp) + pipelined_s(g.fc2, half, c.pipeline_splits, c.comm_sm_share);
  return overlapped - (g.qkv + g.proj + g.fc1 + g.fc2);
}

double backward_exposed_s(const TpOverlapGemms& g, const TpOverlapConfig& c, double half) {
  const double overlapped =
      ring_exchange_s(g.proj_dgrad, half, c.tp) + ring_exchange_s(g.fc2_dgrad, half, c.tp) +
      bulk_s(g.qkv_wgrad, half, c.comm_sm_share) + bulk_s(g.fc1_wgrad, half, c.comm_sm_share);
  return overlapped - (g.proj_dgrad + g.fc2_dgrad + g.qkv_wgrad + g.fc1_wgrad);
}

TpEach tp_each_s(const std::optional<TpOverlapGemms>& gemms, const TpOverlapConfig& c, double all_reduce_s) {
  if (!gemms)
    return {all_reduce_s, all_reduce_s};
  return {forward_exposed_s(*gemms, c, all_reduce_s / 2) / 2,
          backward_exposed_s(*gemms, c, all_reduce_s / 2) / 2};
}

} // namespace dpusim::workload
