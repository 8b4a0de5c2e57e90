#include "sim/model/model.hpp"

#include "sim/model/pass.hpp"

namespace dpusim::model {

std::vector<PassRequest> Model::passes(const PassContext& run) const {
  (void)run;
  return {};
}

std::unique_ptr<Perturbation> Model::perturbation(const RunContext& run,
                                                  const metrics::IterationMetrics& clean,
                                                  const metrics::MetricsInputs& in) const {
  (void)run;
  (void)clean;
  (void)in;
  return nullptr;
}

std::unique_ptr<Stretch> Model::stretch(const RunContext& run) const {
  (void)run;
  return nullptr;
}

void Model::account(const PassContext& run, const PassSteps& steps, report::VariantResult& r) const {
  (void)run;
  (void)steps;
  (void)r;
}

} // namespace dpusim::model
