// Rank lists the collectives' structure tests share.
#pragma once

#include <numeric>
#include <vector>

namespace dpusim::collectives::test_ranks {

/// Ranks 0 .. n-1.
inline std::vector<int> iota(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

} // namespace dpusim::collectives::test_ranks
