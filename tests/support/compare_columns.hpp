// Runs `dpusim compare` on a scenario's text and reads some columns of every variant's row of the
// comparison.csv it writes: for the claims tests of the bundled scenarios.
#pragma once

#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <map>
#include <string>
#include <vector>

namespace dpusim::testing {

/// `columns` of each variant (by name) of `yaml`, compared into tmp/NAME/ (expecting `variants` rows).
inline std::map<std::string, std::map<std::string, double>>
compare_columns(const TempDir& tmp, const std::string& name, const std::string& yaml,
                const std::vector<std::string>& columns, std::size_t variants) {
  const auto r = run_text(tmp, "compare", name, yaml);
  std::map<std::string, std::map<std::string, double>> out;
  for (const auto& row : csv_rows(tmp.path() + "/" + name + "/comparison.csv"))
    for (const auto& column : columns)
      out[row.at("variant")][column] = std::stod(row.at(column));
  EXPECT_EQ(out.size(), variants) << r.out << r.err;
  return out;
}

/// step_time_s, ep_comm_s and compute_s of the two variants of `yaml` (an expert-parallel job).
inline std::map<std::string, std::map<std::string, double>>
compare_ep(const TempDir& tmp, const std::string& name, const std::string& yaml) {
  return compare_columns(tmp, name, yaml, {"step_time_s", "ep_comm_s", "compute_s"}, 2);
}

} // namespace dpusim::testing
