#include "sim/scenario/scenario.hpp"

#include "models/base/unit_parse.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace dpusim::scenario {

offload::Requirements Scenario::requirements() const {
  offload::Requirements r;
  r.encryption = cluster.services.encryption;
  r.overlay = cluster.services.overlay;
  r.agents = cluster.services.agent_cores > 0;
  r.storage = (workload.data && workload.data->sample.si() > 0) || workload.checkpoint.has_value();
  r.separate_storage_fabric = cluster.storage.separate_fabric;
  return r;
}

const offload::Variant* Scenario::find_variant(const std::string& variant_name) const {
  for (const auto& v : variants)
    if (v.name == variant_name)
      return &v;
  return nullptr;
}

} // namespace dpusim::scenario

namespace dpusim::scenario {

int CheckpointConfig::iterations(double step_s) const {
  if (!every_time)
    return every;
  if (!(step_s > 0))
    return 1;
  return static_cast<int>(std::clamp(std::floor(every_time->si() / step_s + 1e-9), 1.0, 1e9));
}

std::string CheckpointConfig::describe() const {
  return every_time ? units::format(*every_time) : fmt::format("{} iterations", every);
}

} // namespace dpusim::scenario
