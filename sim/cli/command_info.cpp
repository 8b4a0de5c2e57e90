#include "sim/cli/command.hpp"
#include "sim/cli/common.hpp"
#include "sim/offload/variant.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>

namespace dpusim::cli {

extern const char* const kScenarioSchema; // docs/scenario-schema.md, embedded at build time

int command_schema(const std::vector<std::string>& args) {
  po::options_description options("Options");
  po::variables_map vm;
  if (!parse_command("schema", "", "Prints the scenario file reference (docs/scenario-schema.md).", options,
                     args, vm, false))
    return kOk;
  std::cout << kScenarioSchema;
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
  return kOk;
}

} // namespace dpusim::cli
