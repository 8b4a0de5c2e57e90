// What a model adds to a run's results. A Column is a CSV column of the run's results: its name (unit in
// it, as every column) and how to read it from a result. An Output is a value a model writes into a
// result (VariantResult::set_value), declared where the model declares its keys: its name, unit and
// meaning, and which CSV files carry it. The commands that write the CSVs take both from the registry.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace dpusim::report {

struct VariantResult;

struct Column {
  std::string name;
  std::function<double(const VariantResult& r)> value;
};

struct Output {
  std::string_view name; // may hold one "{}": any lower-case word there (a noise source, a pass)
  std::string_view unit; // s | fraction | count | flag
  std::string_view description;
  bool comparison = false; // a column of comparison.csv (and so of samples.csv); 0 where not set
  bool samples = false;    // a column of samples.csv only
};

/// Whether `name` is what `o` declares (its "{}" standing for a lower-case word: letters, digits, '_'
/// and '-').
bool matches(const Output& o, std::string_view name);

} // namespace dpusim::report
