// What a calibration profile's measurements may plausibly be: documented physical ranges, each with the
// reason a value beyond it means a broken measurement (a loaded machine, a failed probe) rather than a
// machine unlike others, and its source. dpusim-calib warns on them (and refuses them with --strict);
// a run that applies such a profile says so. docs/calibration.md lists the ranges.
#pragma once

#include "models/calibration/profile.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calibration {

struct PlausibleRange {
  std::string_view parameter; // the part after the role ("os_noise_fraction"); every role that has it
  double low = 0;             // SI units, inclusive
  double high = 0;
  std::string_view meaning; // what a value beyond the range means
  std::string_view source;  // a key of the catalog's sources.yaml
};

std::span<const PlausibleRange> plausible_ranges();

/// One sentence per implausible value of the profile: the key, the value, the range, what it means.
/// Checked besides the ranges: an RDMA bandwidth above the fastest NIC port the machine reported.
std::vector<std::string> implausible_values(const Profile& profile);

/// Whether two halves of one measurement disagree: the larger more than twice the smaller and apart by
/// more than `absolute` (in the value's units).
bool unstable_halves(double first, double second, double absolute);

} // namespace dpusim::calibration
