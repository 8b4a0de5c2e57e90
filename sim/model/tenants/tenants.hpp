// Other tenants sharing the fabric (tenants.cpp): what the fabric's shape takes from them.
#pragma once

#include "sim/scenario/scenario.hpp"

namespace dpusim::model {

/// Whether other tenants' DPUs hold them to their share of the up-links in this variant: only where
/// the scenario asks for it and this job runs on DPUs too.
bool isolated(const scenario::Scenario& s, const offload::Variant& v);

} // namespace dpusim::model
