#include "hw_calib/fit/alpha_beta_fit.hpp"

#include "hw_calib/fit/linear_fit.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace dpusim::calib {

AlphaBetaFit fit_alpha_beta(std::span<const double> sizes_bytes, std::span<const double> times_s) {
  std::vector<double> weights(times_s.size());
  for (std::size_t i = 0; i < times_s.size(); ++i) {
    if (!(times_s[i] > 0))
      throw std::invalid_argument("alpha-beta fit: every time must be positive");
    weights[i] = 1.0 / (times_s[i] * times_s[i]);
  }
  const LinearFit line = fit_linear(sizes_bytes, times_s, weights);
  if (!(line.slope > 0))
    throw std::invalid_argument(
        "alpha-beta fit: the time does not grow with the size, so there is no bandwidth");
  AlphaBetaFit fit;
  fit.alpha_s = std::max(0.0, line.intercept);
  fit.beta_Bps = 1.0 / line.slope;
  fit.r2 = line.r2;
  fit.samples = line.samples;
  double sq = 0;
  for (std::size_t i = 0; i < times_s.size(); ++i) {
    const double rel = (times_s[i] - fit.time(sizes_bytes[i])) / times_s[i];
    sq += rel * rel;
  }
  fit.rmse_rel = std::sqrt(sq / static_cast<double>(times_s.size()));
  return fit;
}

} // namespace dpusim::calib
