// dpusim traffic: the flows of a traffic file on a scenario's fabric, each timed from its start to its
// last byte, with the links' use and the ports' pauses and marks (docs/traffic.md).
#include "models/base/atomic_file.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/common.hpp"
#include "sim/cli/traffic_table.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/input/traffic_file.hpp"
#include "sim/report/link_usage.hpp"
#include "sim/run/traffic_run.hpp"

#include <fmt/format.h>
#include <iostream>

namespace dpusim::cli {

int command_traffic(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options() //
      ("variant", po::value<std::string>(),
       "offload variant: a name from the scenario or a placement (default: the scenario's baseline)") //
      ("seed", po::value<unsigned long long>(),
       "seed of the permutations that name none, and of ECMP's hashes (default: the scenario's)");
  add_common_options(options);
  po::variables_map vm;
  if (!parse_command("traffic", "SCENARIO.yaml TRAFFIC.yaml [options]",
                     "Simulates the flows of a traffic file (incast, permutation, shift, all-to-all, single "
                     "and background flows between the cluster's GPUs, and collectives: all-reduce, "
                     "all-gather, reduce-scatter, all-to-all) on the scenario's fabric, without its training "
                     "job; prints "
                     "each group's flow completion times and the busiest, most paused and most marked ports; "
                     "writes <out>/flows.csv, <out>/links.csv and <out>/collectives.csv (docs/traffic.md).",
                     options, args, vm, true, {}, "traffic"))
    return kOk;
  const auto cat = load_catalog(vm);
  auto s = input::load_scenario(vm["scenario"].as<std::string>(), cat);
  if (vm.count("seed") != 0)
    s.seed = vm["seed"].as<unsigned long long>();
  const offload::Variant variant = variant_option(vm, s, cat);
  const auto traffic =
      input::load_traffic(vm["traffic"].as<std::string>(), run::traffic_hosts(s, cat), s.seed);
  std::string calibration;
  if (vm.count("calibration") != 0)
    calibration = vm["calibration"].as<std::string>();
  std::function<void(std::size_t, std::size_t)> progress;
  if (show_progress(vm))
    progress = [](std::size_t done, std::size_t total) {
      if (done == total || done % 4096 == 0)
        std::cerr << fmt::format("\r[{}/{}] tasks", done, total) << (done == total ? "\n" : "") << std::flush;
    };
  const auto result = run::run_traffic(s, cat, variant, traffic, calibration, progress);

  const std::string table = render_traffic_table({s.name, variant.name}, traffic, result);
  OutputSet outputs(output_directory(vm, s.name));
  const auto flows = outputs.add("flows.csv", render_flows_csv(traffic, result));
  const auto links = outputs.add("links.csv", report::render_links_csv(result.links, result.congestion));
  // Always written (its header alone without collective groups), so that no earlier run's table is left
  // beside this run's files.
  const auto collectives = outputs.add("collectives.csv", render_collectives_csv(traffic, result));
  const std::string wrote =
      fmt::format("\nwrote {}\nwrote {}\nwrote {}\n", flows.string(), links.string(), collectives.string());
  outputs.publish();
  if (vm.count("quiet") == 0)
    std::cout << table << wrote;
  return kOk;
}

} // namespace dpusim::cli
