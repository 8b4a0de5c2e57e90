// How often a component interrupts a training job, as a failure study reports it: so many interruptions
// attributed to the component over so many units of it in so long a period (docs/planner.md, goodput).
#pragma once

#include "models/catalog/cited.hpp"

#include <optional>
#include <string_view>

namespace dpusim::catalog {

class EntryReader;

struct InterruptionRate {
  double count = 0;    // interruptions attributed to the component
  double units = 1;    // of how many units of it
  double period_s = 0; // over how long
  Citation cite;
  /// Interruptions per unit per second.
  [[nodiscard]] double per_unit_per_s() const { return count / (units * period_s); }
};

/// Reads the optional `{count, per, over, source | assumption, note}` at `key` ("over" a duration in days,
/// hours or weeks: 54d); nullopt when the entry has none.
std::optional<InterruptionRate> read_interruptions(EntryReader& r, std::string_view key);

} // namespace dpusim::catalog
