#include "hw_calib/measurement/param_builder.hpp"

#include "models/base/unit_parse.hpp"
#include "models/calibration/parameters.hpp"

#include <cmath>
#include <fmt/format.h>

namespace dpusim::calib {

calibration::FitQuality fit_quality(const LinearFit& fit) {
  return calibration::FitQuality{"linear", fit.samples, {{"r2", fit.r2}, {"rmse", fit.rmse}}};
}

calibration::FitQuality fit_quality(const AlphaBetaFit& fit) {
  return calibration::FitQuality{"alpha-beta",
                                 fit.samples,
                                 {{"r2", fit.r2},
                                  {"rmse_rel", fit.rmse_rel},
                                  {"alpha_s", fit.alpha_s},
                                  {"beta_bytes_per_s", fit.beta_Bps},
                                  {"n_half_bytes", fit.n_half_bytes()}}};
}

calibration::FitQuality fit_quality(const LognormalFit& fit) {
  return calibration::FitQuality{
      "lognormal", fit.samples, {{"ks_statistic", fit.ks_statistic}, {"mu", fit.mu}, {"sigma", fit.sigma}}};
}

std::string samples_ref(std::string_view probe, std::string_view series) {
  return fmt::format("raw/{}.csv#{}", probe, series);
}

std::string role_key(std::string_view role, std::string_view name) {
  return fmt::format("{}.{}", role, name);
}

bool add_param(ProbeResult& result, std::string_view probe, ParamSpec spec) {
  const calibration::ParamDef* def = calibration::find_parameter(spec.key);
  if (def == nullptr) {
    result.notes.push_back(fmt::format(
        "{} = {:.6g} (SI) was measured but \"{}\" is not a calibration parameter; kept in the raw samples",
        spec.key, spec.value, spec.key));
    return false;
  }
  if (!std::isfinite(spec.value)) {
    result.notes.push_back(fmt::format("{}: no finite value was measured", spec.key));
    return false;
  }
  try {
    (void)calibration::parse_parameter_value(*def, calibration::format_parameter_value(*def, spec.value));
  } catch (const units::UnitError& e) {
    result.notes.push_back(fmt::format("{} = {:.6g} left out: {}", spec.key, spec.value, e.what()));
    return false;
  }
  calibration::ProfileParam p;
  p.key = std::move(spec.key);
  p.value = spec.value;
  p.provenance = spec.provenance;
  p.source = std::move(spec.source);
  p.probe = std::string(probe);
  if (!spec.series.empty())
    p.samples = samples_ref(probe, spec.series);
  p.fit = std::move(spec.fit);
  p.note = std::move(spec.note);
  result.params.push_back(std::move(p));
  return true;
}

} // namespace dpusim::calib
