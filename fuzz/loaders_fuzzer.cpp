// libFuzzer target over every loader of user input and its validation: each input is read as a
// scenario (the YAML reader, then every model's check), as a plan (its axes, objectives, constraints and
// base scenario), as a calibration profile, as `dpusim validate`'s error targets, as a catalog entry of
// each kind and as a traffic file (`dpusim traffic`, on a cluster of 256 hosts). An input may be rejected
// only with InputError, dpusim's "bad input" (exit status 2); any other exception, a crash, a sanitizer
// report, a hang (-timeout) or memory beyond -rss_limit_mb is a finding. Built with -DDPUSIM_FUZZ=ON (the
// "fuzz" preset) and run by tools/fuzz.sh.
#include "models/base/input_error.hpp"
#include "models/base/yaml_reader.hpp"
#include "models/calibration/profile.hpp"
#include "models/catalog/catalog.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/input/traffic_file.hpp"
#include "sim/input/validation_targets.hpp"
#include "sim/planner/plan_file.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace {

const dpusim::catalog::Catalog& bundled_catalog() {
  static const auto cat = dpusim::catalog::Catalog::load(dpusim::catalog::Catalog::default_directory());
  return cat;
}

template <class Fn>
void expect_only_input_errors(Fn&& read) {
  try {
    read();
  } catch (const dpusim::InputError&) {
    // bad input, reported as such
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dpusim;
  const auto& cat = bundled_catalog();
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::optional<yaml::Node> root;
  expect_only_input_errors([&] { root = yaml::parse_text(text, "fuzz.yaml"); });
  if (!root)
    return 0;
  expect_only_input_errors([&] { (void)input::parse_scenario(*root, cat); });
  expect_only_input_errors([&] { (void)planner::parse_plan(*root, cat); });
  expect_only_input_errors([&] { (void)calibration::parse_profile(*root); });
  expect_only_input_errors([&] { (void)input::parse_validation_targets(*root); });
  for (const auto& kind : catalog::Catalog::kinds())
    expect_only_input_errors([&] { cat.read_entry(kind, *root); });
  expect_only_input_errors([&] { (void)input::parse_traffic(text, "fuzz.yaml", 256, 1); });
  return 0;
}
