// The scenario file itself: its sections, its name and the run's seed and calibration profile.
#include "models/base/text_distance.hpp"
#include "sim/model/catalog_names.hpp"
#include "sim/model/gpu_profiles.hpp"
#include "sim/model/model.hpp"
#include "sim/report/variant_result.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

class ScenarioModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "scenario"; }
  [[nodiscard]] std::string_view summary() const override {
    return "the scenario file: its sections, its name, the seed and the calibration profile";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"name", "text", "required", "a short name, used as the output directory's name"},
        {"description", "text", "empty", "free text"},
        {"cluster", "section", "required", "the nodes, their devices and the fabric"},
        {"workload", "section", "required", "the model trained, its batch and its parallelism"},
        {"offload", "section", "required", "the offload variants to compare"},
        {"seed", "count", "1",
         "the job's draw: each queue pair's ECMP hash and which GPUs run slow (and the step's draws unless "
         "step_seed is given); same seeds, same results"},
        {"step_seed", "count", "the seed",
         "the step's draws: kernel jitter and delays, latency tails, OS noise, node stalls, a flapping "
         "link's phase"},
        {"calibration", "path", "none", "a profile.yaml written by dpusim-calib, relative to the scenario"},
        {"gpu_profile", "catalog GPU profile", "none (the catalog's kernel figures)",
         "a software stack's GPU performance, fitted to published runs (dpusim catalog lists them)"},
        {"calibration_shape", "choice", "auto",
         "auto (the profile's core counts only where its machine has the node's) | apply (always)"},
        {"validation", "section", "none", "the published result a validation scenario reproduces"},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    if (!s.gpu_profile.empty()) {
      if (!is_one_of(s.gpu_profile, gpu_profile_names(cat))) {
        out.push_back({"gpu_profile", unknown_name(s.gpu_profile, gpu_profile_names(cat), "GPU profile")});
      } else if (const auto* node = cat.node(s.cluster.node); node != nullptr) {
        // A stack's figures were fitted on some GPUs: they say nothing of another.
        const auto gpus = gpu_profile_gpus(cat, s.gpu_profile);
        if (!is_one_of(node->gpu, gpus))
          out.push_back(
              {"gpu_profile",
               fmt::format("{} was fitted on {}, not on the {} of a {}; choose a profile of that GPU or "
                           "none (the catalog's kernel figures)",
                           s.gpu_profile, join(gpus), node->gpu, s.cluster.node)});
      }
    }
    const bool safe = std::all_of(s.name.begin(), s.name.end(), [](unsigned char ch) {
      return std::isalnum(ch) != 0 || ch == '-' || ch == '_' || ch == '.';
    });
    if (s.name.size() > 100)
      out.push_back({"name", fmt::format("is {} characters long; a scenario name (a directory under out/) "
                                         "has at most 100",
                                         s.name.size())});
    else if (s.name.empty() || !safe || s.name == "." || s.name == "..")
      out.push_back({"name", fmt::format("\"{}\" is used as a directory name under out/: use letters, "
                                         "digits, '-', '_' or '.'",
                                         s.name)});
    if (!s.calibration.empty()) {
      const std::filesystem::path p = s.calibration;
      if (!std::filesystem::exists(p))
        out.push_back({"calibration", fmt::format("no calibration profile at {}", p.string())});
      else if (!std::filesystem::is_regular_file(p))
        out.push_back({"calibration", fmt::format("{} is not a file: give the profile.yaml that dpusim-calib "
                                                  "wrote",
                                                  p.string())});
    }
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    // A profile measured on other parts than the scenario's: applied, and said.
    for (const auto& d : run.hardware.calibration_differences)
      r.notes.push_back("calibration: " + d);
  }
};

} // namespace

std::unique_ptr<Model> make_scenario_model() {
  return std::make_unique<ScenarioModel>();
}

} // namespace dpusim::model
