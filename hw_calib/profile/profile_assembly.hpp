// Turning a discover result and probe results into the calibration profile (models/calibration's schema)
// and writing a run's output folder: <out>/profile.yaml and <out>/raw/<probe>.csv, every file atomically.
#pragma once

#include "hw_calib/discover/machine_info.hpp"
#include "hw_calib/probes/probe.hpp"
#include "models/calibration/profile.hpp"

#include <filesystem>
#include <string>

namespace dpusim::calib {

/// ISO 8601 UTC, e.g. "2026-11-29T23:02:17Z".
std::string utc_timestamp();

/// Machine summary, tool versions and the role's cores and core clock (from discover).
calibration::Profile base_profile(const MachineInfo& machine);
/// Replaces the discover part (machine, role, cores, clock) of an existing profile.
void apply_discovery(calibration::Profile& profile, const MachineInfo& machine);

/// Adds a probe's parameters, tools and notes to the profile and writes its raw samples.
void merge_probe_result(calibration::Profile& profile, const std::string& probe, const ProbeResult& result,
                        const std::filesystem::path& out_dir);

} // namespace dpusim::calib
