#include "sim/scenario/scenario.hpp"

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
