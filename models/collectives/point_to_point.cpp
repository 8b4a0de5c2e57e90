#include "models/collectives/point_to_point.hpp"

namespace dpusim::collectives {

std::optional<Hop> send(int src, int dst, double bytes) {
  if (bytes <= 0 || src == dst)
    return std::nullopt;
  return Hop{src, dst, bytes};
}

std::vector<Hop> send_recv(const std::vector<std::pair<int, int>>& pairs, double bytes) {
  std::vector<Hop> sends;
  for (const auto& [src, dst] : pairs)
    if (const auto hop = send(src, dst, bytes))
      sends.push_back(*hop);
  return sends;
}

} // namespace dpusim::collectives
