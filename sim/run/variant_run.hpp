// Simulates one variant of a scenario, start to finish: resolve the hardware, build the topology and
// the iteration's task graph, run it on SimGrid, measure. One call per process (SimGrid's engine is a
// process-wide singleton); `dpusim compare` runs each variant in its own process.
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/scenario.hpp"

#include <functional>
#include <string>

namespace dpusim::model {
class Registry;
}

namespace dpusim::run {

struct RunOptions {
  std::string calibration;        // profile path overriding the scenario's, empty for none
  bool calibration_shape = false; // take the profile's core counts even where its machine differs
  std::string trace_path;         // Chrome trace-event JSON to write, empty for none
  std::string links_path;         // per-link usage CSV to write, empty for none
  std::function<void(std::size_t, std::size_t)> progress; // tasks done / total
  // false: simulate the whole iteration that writes a synchronous checkpoint even where its writes
  // alone would do (tests compare the two)
  bool checkpoint_writes_alone = true;
  // false: no pass that only explains the result (a setting's sensitivity): for runs whose notes nobody
  // reads (a plan's points, --samples, validation)
  bool explain = true;
  // the models to run (null: the built-in registry); tests add a model of their own
  const model::Registry* registry = nullptr;
};

report::VariantResult run_variant(const scenario::Scenario& s, const catalog::Catalog& cat,
                                  const offload::Variant& variant, const RunOptions& options);

} // namespace dpusim::run
