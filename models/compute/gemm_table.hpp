// Measured GEMM throughput over shapes (a table of (batch, m, n, k) -> FLOP/s) and interpolation in
// log-shape space. The table's source is cited in the GPU's catalog entry.
#pragma once

#include "models/base/units.hpp"

#include <string>
#include <vector>

namespace dpusim::compute {

struct GemmPoint {
  double batch = 1;
  double m = 0;
  double n = 0;
  double k = 0;
  double flop_per_s = 0;
};

class GemmTable {
public:
  GemmTable() = default;
  explicit GemmTable(std::vector<GemmPoint> points);

  /// Reads "b,m,n,k,flops_per_s" rows (lines starting with '#' are comments); throws InputError.
  static GemmTable load_csv(const std::string& path);

  /// Achieved throughput for a shape. Inside the measured range: inverse-distance weighting of the
  /// nearest measured shapes in (log2(batch*m), log2 n, log2 k); beyond it each coordinate is clamped,
  /// i.e. throughput is held at that of the largest (or smallest) measured shapes.
  [[nodiscard]] units::FlopRate achieved(double batch, double m, double n, double k) const;
  [[nodiscard]] units::FlopRate best() const;
  [[nodiscard]] bool empty() const { return points_.empty(); }
  [[nodiscard]] std::size_t size() const { return points_.size(); }
  /// A copy with every throughput multiplied by `factor` (e.g. to another GPU's measured ceiling).
  [[nodiscard]] GemmTable scaled(double factor) const;

private:
  struct Key {
    double x, y, z, log_rate;
  };
  std::vector<GemmPoint> points_;
  std::vector<Key> keys_;
  double lo_[3] = {0, 0, 0};
  double hi_[3] = {0, 0, 0};
};

} // namespace dpusim::compute
