// Building profile parameters with their provenance: the registry key for the profile's role, the
// samples they came from ("raw/<probe>.csv#<series>") and the fit quality of fitted values.
#pragma once

#include "hw_calib/fit/alpha_beta_fit.hpp"
#include "hw_calib/fit/linear_fit.hpp"
#include "hw_calib/fit/lognormal_fit.hpp"
#include "hw_calib/measurement/result.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace dpusim::calib {

calibration::FitQuality fit_quality(const LinearFit& fit);
calibration::FitQuality fit_quality(const AlphaBetaFit& fit);
calibration::FitQuality fit_quality(const LognormalFit& fit);

/// "raw/<probe>.csv#<series>": where a parameter's samples are, relative to profile.yaml.
std::string samples_ref(std::string_view probe, std::string_view series);

struct ParamSpec {
  std::string key;  // full registry key, e.g. "host_cpu.tcp_rx_rate_per_core" (see role_key)
  double value = 0; // SI units
  calibration::Provenance provenance = calibration::Provenance::measured;
  std::string source; // how it was measured (tool, method)
  std::string series; // the raw-sample series it came from; empty if none
  std::optional<calibration::FitQuality> fit;
  std::string note;
};

/// "<role>.<name>", e.g. role_key("dpu_arm", "tcp_rx_rate_per_core").
std::string role_key(std::string_view role, std::string_view name);

/// Adds the parameter to the result when its key is in the registry and its value is valid for its kind;
/// otherwise records a note saying why it was left out (e.g. a parameter with no registry entry for the
/// role). Returns whether it was added.
bool add_param(ProbeResult& result, std::string_view probe, ParamSpec spec);

} // namespace dpusim::calib
