// Whether a calibration profile was measured on the parts the scenario simulates: its machine summary's
// CPU, GPU and NIC names against the catalog's entries. A profile of another machine is still applied
// (its per-core rates are what the user has); the run says what differs.
#pragma once

#include "models/calibration/profile.hpp"
#include "sim/scenario/hardware.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dpusim::model {

/// Whether a part a tool reports as `reported` ("Intel(R) Xeon(R) Platinum 8480C") is the catalog part
/// described by `catalog_description`: some token of the report that holds a digit ("8480C", "H100",
/// "ConnectX-7") appears in the description, case aside. A report with no such token cannot be matched.
bool names_the_part(std::string_view reported, std::string_view catalog_description);

/// One sentence per part of `hw` the profile's machine reports differently (the host CPU for a profile
/// of the host side; every GPU; the NIC where the variant runs on a NIC); none where they match or the
/// profile does not say.
std::vector<std::string> machine_differences(const calibration::Profile& profile,
                                             const scenario::Hardware& hw);

} // namespace dpusim::model
