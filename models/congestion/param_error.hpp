// A parameter that a congestion model refuses, by name, for the caller to report with the file and line
// the value came from.
#pragma once

#include <string>
#include <vector>

namespace dpusim::congestion {

struct ParamError {
  std::string field;   // the parameter's name, as in the catalog entry ("k_min", "pfc_xon")
  std::string message; // what is wrong and what is valid
};

using ParamErrors = std::vector<ParamError>;

/// Whether `errors` refuse `field`.
inline bool refuses(const ParamErrors& errors, const std::string& field) {
  for (const auto& e : errors)
    if (e.field == field)
      return true;
  return false;
}

} // namespace dpusim::congestion
