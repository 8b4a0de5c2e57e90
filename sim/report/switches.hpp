// The things that differ between two variants of a comparison, each switched alone (PairSwitches): the
// words that say what each moves, and the test a cause must pass before an explanation names it.
#pragma once

#include "sim/report/comparison.hpp"

#include <string>
#include <string_view>

namespace dpusim::report {

/// The share of the first variant's step below which a thing switched alone "changes nothing by itself".
inline constexpr double kNamedShare = 0.005;

/// Whether switching `s` alone moves the step by at least kNamedShare of `first_step_s`.
bool moves_step(const Switched& s, double first_step_s);

/// Whether `thing` differs in `p` and, switched alone, moves the step (false without `p`).
bool named(const PairSwitches* p, std::string_view thing, double first_step_s);

/// " What differs, each switched alone from <first> towards <second>: transport on the NIC (<first>: the
/// host) -1.2345 s (-14.8%); ...", and where every thing was measured, what they move together beyond
/// the sum of each alone (`total_s`: the second's step less the first's); empty where nothing differs.
std::string render_switches(const PairSwitches& p, double first_step_s, double total_s);

} // namespace dpusim::report
