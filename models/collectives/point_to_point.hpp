// Point-to-point transfers: a send from one GPU to another, and independent sends between pairs
// (pipeline-parallel send/recv). See docs/models/collectives.md, "Point-to-point".
#pragma once

#include "models/collectives/collective.hpp"

#include <optional>
#include <utility>

namespace dpusim::collectives {

/// A send of `bytes` from `src` to `dst`: one hop, or none when nothing moves (no bytes, or a GPU to
/// itself).
std::optional<Hop> send(int src, int dst, double bytes);

/// Independent sends of `bytes` each, one per pair (src, dst) that moves anything, in the pairs' order.
std::vector<Hop> send_recv(const std::vector<std::pair<int, int>>& pairs, double bytes);

} // namespace dpusim::collectives
