// A calibration profile: what dpusim-calib measured on a machine, with the provenance of every value.
// The YAML layout is documented in docs/calibration.md; this is its only reader and writer.
#pragma once

#include "models/base/yaml_reader.hpp"
#include "models/calibration/parameters.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dpusim::calibration {

enum class Provenance { measured, fitted, datasheet };
std::string_view provenance_name(Provenance p);

struct FitQuality {
  std::string model;                     // e.g. "alpha-beta", "lognormal", "linear"
  int samples = 0;                       // number of samples the fit used
  std::map<std::string, double> metrics; // e.g. r2, ks_statistic, rmse_rel
};

struct ProfileParam {
  std::string key;  // a key of parameter_registry()
  double value = 0; // SI units
  Provenance provenance = Provenance::measured;
  std::string source;  // datasheet: citation; measured/fitted: tool and command that produced it
  std::string probe;   // the probe that measured it
  std::string samples; // raw samples CSV, relative to the profile file
  std::optional<FitQuality> fit;
  std::string note;
};

struct Profile {
  int version = 1;
  bool complete = true;          // false when the run was interrupted or a requested probe failed
  std::string created;           // ISO 8601 UTC
  std::string role = "host_cpu"; // host_cpu | dpu_arm: which side of the node was measured
  std::map<std::string, std::string> machine; // flattened discover summary ("cpu.model" -> "...")
  std::map<std::string, std::string> tools;   // tool name -> version
  std::vector<ProfileParam> parameters;
  std::vector<std::string> notes; // e.g. probes skipped and why

  [[nodiscard]] const ProfileParam* find(std::string_view key) const;
  void set(ProfileParam param); // replaces a parameter with the same key
};

/// Strict reader: unknown keys, unknown parameters and wrong units are InputError with file:line:col.
Profile load_profile(const std::string& path);
/// The same, from YAML already parsed (yaml::parse_text).
Profile parse_profile(const yaml::Node& root);
/// The YAML text of a profile (stable key order, so that profiles diff well).
std::string render_profile(const Profile& profile);
/// Writes atomically.
void save_profile(const Profile& profile, const std::string& path);

} // namespace dpusim::calibration
