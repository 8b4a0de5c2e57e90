// Validated software-stack profiles of GPU performance, in the catalog's gpu_profiles/ folder: a
// calibration profile of gpu.* parameters fitted to published training runs, with notes that say on
// which rows and with what error. A scenario names one with gpu_profile:.
#pragma once

#include "models/calibration/profile.hpp"
#include "models/catalog/catalog.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace dpusim::model {

/// The profiles the catalog offers, by name (file stem), sorted.
std::vector<std::string> gpu_profile_names(const catalog::Catalog& cat);
std::filesystem::path gpu_profile_path(const catalog::Catalog& cat, const std::string& name);
/// The catalog GPUs a profile was fitted on (its machine's `gpus`, space-separated).
std::vector<std::string> gpu_profile_gpus(const catalog::Catalog& cat, const std::string& name);

} // namespace dpusim::model
