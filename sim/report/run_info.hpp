// What a run knew besides its numbers, for `dpusim report`: the scenario's key inputs (and its file),
// the explanation of each difference and every note each variant reported, as JSON (run-info.json,
// published with the CSVs of the command that wrote it). A figure must not travel without its
// conditions, and the CSVs carry no sentences.
#pragma once

#include "sim/report/comparison.hpp"
#include "sim/report/distribution.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::report {

/// What the command did besides simulating the comparison's variants.
struct RunContext {
  std::string command;                   // "run" or "compare"
  std::optional<Sampling> sampling;      // none: a single run per variant
  std::vector<std::string> explanations; // report::explain's sentences
  std::vector<std::string> files;        // the other files of its output set (a report draws only these)
};

/// The run's inputs and notes as JSON. Deterministic: no wall-clock time, no host names.
std::string render_run_info(const scenario::Scenario& s, const Comparison& c, const RunContext& run);

/// A JSON string literal of `text` (quotes included), control characters escaped.
std::string json_string(std::string_view text);

} // namespace dpusim::report
