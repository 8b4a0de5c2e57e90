// Seeds of the random streams the models draw from, each from a seed and a tag of its own (the
// scenario's seed and a noise source's, a routing seed and a layer's index), so that turning one source
// of draws on does not move another's.
#pragma once

#include <cstdint>

namespace dpusim {

/// A 64-bit mix of the seed (splitmix64's finaliser): each stream's seed.
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27U)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31U);
}

} // namespace dpusim
