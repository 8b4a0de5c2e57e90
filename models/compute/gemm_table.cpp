#include "models/compute/gemm_table.hpp"

#include "models/base/input_error.hpp"
#include "models/base/input_file.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <sstream>

namespace dpusim::compute {

GemmTable::GemmTable(std::vector<GemmPoint> points) : points_(std::move(points)) {
  for (int i = 0; i < 3; ++i) {
    lo_[i] = 1e300;
    hi_[i] = -1e300;
  }
  for (const auto& p : points_) {
    const Key key{std::log2(p.batch * p.m), std::log2(p.n), std::log2(p.k), std::log(p.flop_per_s)};
    keys_.push_back(key);
    const double c[3] = {key.x, key.y, key.z};
    for (int i = 0; i < 3; ++i) {
      lo_[i] = std::min(lo_[i], c[i]);
      hi_[i] = std::max(hi_[i], c[i]);
    }
  }
}

GemmTable GemmTable::load_csv(const std::string& path) {
  std::istringstream in(read_input_file(path, "a GEMM throughput table (CSV)"));
  std::vector<GemmPoint> points;
  std::string line;
  int line_no = 0;
  bool header_seen = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#')
      continue;
    if (!header_seen) {
      if (line.rfind("b,m,n,k,flops_per_s", 0) != 0)
        throw InputError(Location{path, line_no, 1}, "",
                         fmt::format("expected the header \"b,m,n,k,flops_per_s\", found \"{}\"", line));
      header_seen = true;
      continue;
    }
    std::array<double, 5> v{};
    std::stringstream ss(line);
    std::string cell;
    std::size_t i = 0;
    while (std::getline(ss, cell, ',') && i < v.size()) {
      try {
        v[i] = std::stod(cell);
      } catch (const std::exception&) {
        throw InputError(Location{path, line_no, 1}, "", fmt::format("\"{}\" is not a number", cell));
      }
      ++i;
    }
    if (i != v.size() || !(v[0] > 0 && v[1] > 0 && v[2] > 0 && v[3] > 0 && v[4] > 0))
      throw InputError(Location{path, line_no, 1}, "", "expected five positive numbers: b,m,n,k,flops_per_s");
    points.push_back({v[0], v[1], v[2], v[3], v[4]});
  }
  if (points.empty())
    throw InputError(Location{path, 0, 0}, "", "the GEMM throughput table has no rows");
  return GemmTable(std::move(points));
}

units::FlopRate GemmTable::achieved(double batch, double m, double n, double k) const {
  const double q[3] = {std::clamp(std::log2(batch * m), lo_[0], hi_[0]),
                       std::clamp(std::log2(n), lo_[1], hi_[1]), std::clamp(std::log2(k), lo_[2], hi_[2])};
  // Inverse-distance weighting over the four nearest measured shapes (geometric mean of throughput).
  constexpr std::size_t kNeighbours = 4;
  std::array<std::pair<double, double>, kNeighbours> best{};
  best.fill({1e300, 0.0});
  for (const auto& key : keys_) {
    const double d2 =
        (key.x - q[0]) * (key.x - q[0]) + (key.y - q[1]) * (key.y - q[1]) + (key.z - q[2]) * (key.z - q[2]);
    if (d2 < best.back().first) {
      best.back() = {d2, key.log_rate};
      std::sort(best.begin(), best.end());
    }
  }
  if (best.front().first < 1e-12)
    return units::flop_per_s(std::exp(best.front().second));
  double wsum = 0;
  double vsum = 0;
  for (const auto& [d2, log_rate] : best) {
    if (d2 >= 1e299)
      continue;
    const double w = 1.0 / d2;
    wsum += w;
    vsum += w * log_rate;
  }
  return units::flop_per_s(std::exp(vsum / wsum));
}

units::FlopRate GemmTable::best() const {
  double b = 0;
  for (const auto& p : points_)
    b = std::max(b, p.flop_per_s);
  return units::flop_per_s(b);
}

GemmTable GemmTable::scaled(double factor) const {
  std::vector<GemmPoint> pts = points_;
  for (auto& p : pts)
    p.flop_per_s *= factor;
  return GemmTable(std::move(pts));
}

} // namespace dpusim::compute
