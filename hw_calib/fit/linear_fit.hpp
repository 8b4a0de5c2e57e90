// Least-squares straight line y = intercept + slope * x (Eigen), with the coefficient of determination.
// Used for CPU-seconds-per-byte fits (cumulative CPU time against cumulative bytes) and as the core of
// the alpha-beta fit.
#pragma once

#include <span>

namespace dpusim::calib {

struct LinearFit {
  double intercept = 0;
  double slope = 0;
  double r2 = 0;   // 1 - SS_res / SS_tot on the unweighted data
  double rmse = 0; // root-mean-square residual, in y units
  int samples = 0;
  [[nodiscard]] double predict(double x) const { return intercept + slope * x; }
};

/// Fits y against x; `weights` (optional, same length) weight each squared residual. Throws
/// std::invalid_argument for fewer than 2 points, mismatched lengths or x without spread.
LinearFit fit_linear(std::span<const double> x, std::span<const double> y,
                     std::span<const double> weights = {});

} // namespace dpusim::calib
