#include "models/congestion/max_min.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>

namespace dpusim::congestion {

void max_min_share(double capacity, const std::vector<double>& demand, std::vector<double>& share) {
  share.assign(demand.size(), 0.0);
  std::vector<std::size_t> order(demand.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return demand[a] < demand[b]; });
  double left = capacity;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const double level = left / static_cast<double>(order.size() - k);
    const double give = std::min(demand[order[k]], level);
    share[order[k]] = give;
    left -= give;
  }
}

} // namespace dpusim::congestion
