// How much ECMP's hash choices cost a communication: for its parts together (the rings or trees of a
// collective, which run side by side), the bytes its GPU-to-GPU flows put on each switch-to-switch link,
// against what the same bytes would put there spread perfectly over each switch's equal up-links (and
// down-links). A ratio above 1 means hash collisions, not the fabric's capacity, set its pace; it depends on
// the seed.
#pragma once

#include "sim/plan/iteration_plan.hpp"
#include "sim/platform/route_registry.hpp"

#include <string>

namespace dpusim::plan {

struct EcmpImbalance {
  double ratio = 1.0; // busiest link's load over the balanced bound (time per byte of capacity)
  std::string label;  // the communication it happened in
};

/// The worst communication of the iteration. One without switch-to-switch traffic counts as balanced.
EcmpImbalance ecmp_imbalance(const IterationPlan& plan, platform::RouteRegistry& routes);

} // namespace dpusim::plan
