#include "hw_calib/fit/linear_fit.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace dpusim::calib {

LinearFit fit_linear(std::span<const double> x, std::span<const double> y, std::span<const double> weights) {
  if (x.size() != y.size() || (!weights.empty() && weights.size() != x.size()))
    throw std::invalid_argument(
        fmt::format("linear fit: {} x values, {} y values and {} weights do not match", x.size(), y.size(),
                    weights.size()));
  if (x.size() < 2)
    throw std::invalid_argument(fmt::format("linear fit: needs at least 2 samples, got {}", x.size()));
  const auto n = static_cast<Eigen::Index>(x.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double w = weights.empty() ? 1.0 : std::sqrt(weights[k]);
    a(i, 0) = w;
    a(i, 1) = w * x[k];
    b(i) = w * y[k];
  }
  double xmin = x[0], xmax = x[0];
  for (double v : x) {
    xmin = std::min(xmin, v);
    xmax = std::max(xmax, v);
  }
  if (!(xmax > xmin))
    throw std::invalid_argument("linear fit: all x values are equal, the slope is undetermined");
  const Eigen::Vector2d coef = a.colPivHouseholderQr().solve(b);
  LinearFit fit;
  fit.intercept = coef(0);
  fit.slope = coef(1);
  fit.samples = static_cast<int>(n);
  double mean = 0;
  for (double v : y)
    mean += v;
  mean /= static_cast<double>(y.size());
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double r = y[i] - fit.predict(x[i]);
    ss_res += r * r;
    ss_tot += (y[i] - mean) * (y[i] - mean);
  }
  fit.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  fit.rmse = std::sqrt(ss_res / static_cast<double>(y.size()));
  return fit;
}

} // namespace dpusim::calib
