// What one measurement gives, whether a probe took it live or `ingest` read it from a recorded tool
// output: profile parameters (with provenance and fit quality), raw samples (written to
// <out>/raw/<probe>.csv), notes, warnings and the versions of the tools it used.
#pragma once

#include "hw_calib/common/sample_table.hpp"
#include "models/calibration/profile.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

enum class ProbeStatus { ok, skipped, failed };
std::string_view probe_status_name(ProbeStatus status);

struct ProbeResult {
  ProbeStatus status = ProbeStatus::ok;
  std::vector<calibration::ProfileParam> params;
  SampleTable samples;
  std::vector<std::string> notes;           // go to the profile's notes, prefixed with the probe name
  std::vector<std::string> warnings;        // measurements not to trust (unstable): notes and console
  std::map<std::string, std::string> tools; // tool -> version
  std::vector<std::string> summary;         // lines printed for the user
  std::string error;                        // why it failed or was skipped
};

/// A result that says the probe did not run and why (the message goes to the profile's notes).
ProbeResult skipped(std::string why);

} // namespace dpusim::calib
