// Attribution of a variant's step-time difference to each function it moves (offload/attribution.hpp):
// console table and CSV.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dpusim::report {

struct Attribution {
  std::string scenario;
  std::string variant;  // the target
  std::string baseline; // where the "alone" moves start from
  double baseline_step_s = 0;
  double variant_step_s = 0;
  struct Row {
    std::string function;
    std::string from;
    std::string to;
    std::optional<double> alone_step_s; // the baseline with only this function moved; absent: cannot run
    std::optional<double> last_step_s;  // the target with only this function moved back; absent: cannot run
    std::string note;                   // why a move cannot run
  };
  std::vector<Row> rows;

  [[nodiscard]] double total_s() const { return variant_step_s - baseline_step_s; }
  /// Step change from moving `r`'s function alone (negative: faster).
  [[nodiscard]] std::optional<double> alone_change_s(const Row& r) const;
  /// Step change the function makes as the last one moved (target minus target without it).
  [[nodiscard]] std::optional<double> last_change_s(const Row& r) const;
};

std::string render_attribution(const Attribution& a);
std::string render_attribution_csv(const std::vector<Attribution>& all);

} // namespace dpusim::report
