// What a run knew besides its numbers, for `dpusim report`: the scenario's key inputs (and its file),
// the explanation of each difference and every note each variant reported, as JSON (run-info.json,
// published with the CSVs of the command that wrote it). A figure must not travel without its
// conditions, and the CSVs carry no sentences.
#pragma once

#include "sim/report/comparison.hpp"
#include "sim/scenario/scenario.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace dpusim::report {

/// The run's inputs and notes as JSON. `command` is "run" or "compare"; `samples` 0 for a single run.
/// Deterministic: no wall-clock time, no host names.
std::string render_run_info(const scenario::Scenario& s, const Comparison& c,
                            const std::vector<std::string>& explanations, std::size_t samples,
                            std::string_view command);

/// A JSON string literal of `text` (quotes included), control characters escaped.
std::string json_string(std::string_view text);

} // namespace dpusim::report
