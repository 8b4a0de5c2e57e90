// The published result a validation scenario reproduces (`dpusim validate`).
#include "sim/model/model.hpp"

#include <memory>

namespace dpusim::model {
namespace {

class ValidationModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "validation"; }
  [[nodiscard]] std::string_view summary() const override {
    return "a published training run the scenario reproduces, and the metric compared";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"validation.metric", "choice", "required",
         "tflops_per_gpu | iteration_time_ms | mfu (model FLOPs, docs/metrics.md)"},
        {"validation.published", "number", "required", "the published value of the metric"},
        {"validation.table", "text", "required", "a name grouping rows of one published table"},
        {"validation.source", "text", "required", "where the published value comes from"},
        {"validation.assumptions", "list", "none",
         "what the scenario assumes where the publication is silent"},
    };
  }
};

} // namespace

std::unique_ptr<Model> make_validation_model() {
  return std::make_unique<ValidationModel>();
}

} // namespace dpusim::model
