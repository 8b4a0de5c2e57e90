// The latency/bandwidth (alpha-beta, Hockney) model of a transport: moving s bytes takes
// t(s) = alpha + s / beta. Fitted by least squares on relative residuals (weights 1/t^2), so that small
// messages, which determine alpha, count as much as large ones, which determine beta.
// The size -> efficiency curve follows from it: efficiency(s) = (s / beta) / t(s) = s / (s + n_half),
// with n_half = alpha * beta the size at which half the asymptotic bandwidth is reached.
#pragma once

#include <span>

namespace dpusim::calib {

struct AlphaBetaFit {
  double alpha_s = 0;  // per-message latency, seconds
  double beta_Bps = 0; // asymptotic bandwidth, bytes per second
  double r2 = 0;       // on the times, unweighted
  double rmse_rel = 0; // root-mean-square relative residual
  int samples = 0;
  [[nodiscard]] double time(double size_bytes) const { return alpha_s + size_bytes / beta_Bps; }
  [[nodiscard]] double bandwidth(double size_bytes) const { return size_bytes / time(size_bytes); }
  [[nodiscard]] double efficiency(double size_bytes) const { return bandwidth(size_bytes) / beta_Bps; }
  [[nodiscard]] double n_half_bytes() const { return alpha_s * beta_Bps; }
};

/// Fits times (seconds) against sizes (bytes). Throws std::invalid_argument when there are fewer than 2
/// points, the sizes do not differ, or the fitted bandwidth is not positive (times do not grow with size).
/// A slightly negative alpha (noise around zero) is clamped to 0.
AlphaBetaFit fit_alpha_beta(std::span<const double> sizes_bytes, std::span<const double> times_s);

} // namespace dpusim::calib
