#include "models/calibration/parameters.hpp"
#include "models/calibration/profile.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/common.hpp"
#include "sim/model/gpu_profiles.hpp"
#include "sim/model/registry.hpp"
#include "sim/offload/variant.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>

namespace dpusim::cli {

extern const char* const kScenarioSchema; // docs/scenario-schema.md, embedded at build time

std::string key_table() {
  const auto& reg = model::registry();
  std::string out = "| key | kind | default | model | meaning |\n|---|---|---|---|---|\n";
  for (const auto& k : reg.keys())
    out += fmt::format("| `{}` | {} | {} | {} | {} |\n", k.path, k.kind, k.default_value, reg.owner(k.path),
                       k.description);
  return out;
}

int command_schema(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()("keys", "print only the table of every key, by model, from the model registry");
  po::variables_map vm;
  if (!parse_command(
          "schema", "[options]",
          "Prints the scenario file reference (docs/scenario-schema.md); its table of keys comes from "
          "the model registry (--keys prints that table alone).",
          options, args, vm, false))
    return kOk;
  std::cout << (vm.count("keys") != 0 ? key_table() : std::string(kScenarioSchema));
  return kOk;
}

int command_models(const std::vector<std::string>& args) {
  po::options_description options("Options");
  po::variables_map vm;
  if (!parse_command("models", "",
                     "Lists the registered models: what each simulates, the scenario keys it takes, the "
                     "calibration parameters it consumes and the outputs it writes (and which file carries "
                     "each).",
                     options, args, vm, false))
    return kOk;
  const auto& reg = model::registry();
  for (const auto& m : reg.models()) {
    std::cout << fmt::format("{}: {}\n", m->name(), m->summary());
    for (const auto& k : m->keys())
      std::cout << fmt::format("  key   {:<42} {:<15} default: {}\n", k.path, k.kind, k.default_value);
    for (const auto& b : m->calibration())
      std::cout << fmt::format("  param {:<42} sets {}\n", b.parameter, b.field);
    for (const auto& o : m->outputs())
      std::cout << fmt::format("  out   {:<42} {:<15} {}{}\n", o.name, o.unit, o.description,
                               o.comparison ? " (comparison.csv)"
                               : o.samples  ? " (samples.csv)"
                                            : " (run-info.json)");
  }
  std::vector<std::string> unused;
  for (const auto& def : calibration::parameter_registry())
    if (reg.binding(def.key) == nullptr)
      unused.emplace_back(def.key);
  if (!unused.empty())
    std::cout << fmt::format("\nmeasured by dpusim-calib but consumed by no model (reported as unused when a "
                             "profile has them):\n  {}\n",
                             fmt::join(unused, "\n  "));
  return kOk;
}

int command_variants(const std::vector<std::string>& args) {
  po::options_description options("Options");
  po::variables_map vm;
  if (!parse_command("variants", "", "Lists the offload presets and how to write other placements.", options,
                     args, vm, false))
    return kOk;
  for (const auto& v : offload::presets()) {
    std::vector<std::string> sites;
    for (auto f : offload::kFunctions)
      sites.push_back(fmt::format("{}={}", offload::function_name(f), offload::site_name(v.placement[f])));
    std::cout << fmt::format("{:<10} {}\n           {}{}\n", v.name, v.summary, fmt::join(sites, " "),
                             v.on_dpu ? " (on the scenario's DPU)" : "");
  }
  std::cout
      << "\nAny other placement: a preset followed by +function=site changes, e.g. "
         "rdma-nic+storage=dpu_arm.\n"
         "Functions: transport, storage, encryption, vswitch, agents. Sites: host, nic (the device's "
         "hardware\n"
         "engines), dpu_arm (a BlueField's Arm cores). A function the scenario does not use is ignored.\n";
  return kOk;
}

int command_catalog(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()("catalog", po::value<std::string>(), "catalog directory (default: the bundled one)");
  po::variables_map vm;
  if (!parse_command("catalog", "[options]", "Lists the catalog's entries by kind, with their descriptions.",
                     options, args, vm, false))
    return kOk;
  const auto cat = load_catalog(vm);
  auto section = [](const char* title, const std::vector<std::string>& names, auto describe) {
    std::cout << title << ":\n";
    for (const auto& n : names)
      std::cout << fmt::format("  {:<16} {}\n", n, describe(n));
  };
  section("nodes", cat.node_names(), [&](const std::string& n) { return cat.node(n)->description; });
  section("gpus", cat.gpu_names(), [&](const std::string& n) { return cat.gpu(n)->description; });
  section("cpus", cat.cpu_names(), [&](const std::string& n) { return cat.cpu(n)->description; });
  section("nics and dpus", cat.nic_names(), [&](const std::string& n) { return cat.nic(n)->description; });
  section("switches", cat.switch_names(),
          [&](const std::string& n) { return cat.network_switch(n)->description; });
  section("collective libraries", cat.collective_names(),
          [&](const std::string& n) { return cat.collective(n)->description; });
  section("models", cat.model_names(), [&](const std::string& n) { return cat.model(n)->description; });
  section("gpu profiles (gpu_profile:)", model::gpu_profile_names(cat), [&](const std::string& n) {
    const auto p = calibration::load_profile(model::gpu_profile_path(cat, n).string());
    const auto d = p.machine.find("description");
    return d == p.machine.end() ? std::string() : d->second;
  });
  // The failure rates a plan's goodput scales with the job's parts (docs/planner.md).
  std::cout << "interruption rates (dpusim plan goodput), per unit and year:\n";
  auto rate = [](const std::string& entry, const char* what,
                 const std::optional<catalog::InterruptionRate>& r) {
    if (r)
      std::cout << fmt::format("  {:<16} {:<9} {:.4g}: {:g} of {:g} in {:g} days; {}\n", entry, what,
                               r->per_unit_per_s() * 365 * 86400, r->count, r->units, r->period_s / 86400,
                               r->cite.describe());
  };
  for (const auto& n : cat.gpu_names())
    rate(n, "gpu", cat.gpu(n)->interruptions);
  for (const auto& n : cat.nic_names())
    rate(n, "device", cat.nic(n)->interruptions);
  for (const auto& n : cat.node_names()) {
    rate(n, "host", cat.node(n)->interruptions);
    rate(n, "network", cat.node(n)->network_interruptions);
    rate(n, "software", cat.node(n)->software_interruptions);
  }
  return kOk;
}

} // namespace dpusim::cli
