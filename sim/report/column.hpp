// A CSV column a model adds to the run's results: its name (unit in it, as every column) and how to
// read it from a result. The command that writes the CSV takes them from the model registry.
#pragma once

#include <string_view>

namespace dpusim::report {

struct VariantResult;

struct Column {
  std::string_view name;
  double (*value)(const VariantResult& r);
};

} // namespace dpusim::report
