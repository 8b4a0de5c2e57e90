// Max-min fair division of a capacity among demands (water-filling), for links and egress ports.
#pragma once

#include <vector>

namespace dpusim::congestion {

/// share[i] = min(demand[i], level), with the level that hands out min(capacity, sum of demands).
void max_min_share(double capacity, const std::vector<double>& demand, std::vector<double>& share);

} // namespace dpusim::congestion
