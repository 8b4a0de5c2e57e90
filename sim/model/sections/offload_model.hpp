// The offload variants a scenario compares (offload_model.cpp): whether one can run on the scenario's
// devices, shared by the YAML reader, the command line's --variant and the scenario check.
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/scenario/scenario.hpp"

#include <cstddef>
#include <string>

namespace dpusim::model {

/// Why `v` cannot run in scenario `s` (a function it moves that the scenario does not use, a DPU the
/// cluster lacks, a function the device cannot run), or an empty string.
std::string variant_problem(const scenario::Scenario& s, const catalog::Catalog& cat,
                            const offload::Variant& v);

/// The most variants a scenario or `compare --variants` may compare, the baseline included: each is a
/// simulation of its own, and this is more than every placement (five functions on three sites, 3^5)
/// on both the NIC and the DPU.
inline constexpr std::size_t kMaxVariants = 1000;
/// "N variants ...; at most kMaxVariants ...", for the scenario check and the command line.
std::string too_many_variants(std::size_t count);

/// Whether a variant's name is plain: a column value of comparison.csv and a --variant argument.
bool plain_variant_name(const std::string& name);

} // namespace dpusim::model
