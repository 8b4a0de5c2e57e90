#include "sim/cli/common.hpp"

#include "sim/input/scenario_loader.hpp"
#include "sim/scenario/rank_memory.hpp"

#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

namespace dpusim::cli {

bool parse_command(const std::string& name, const std::string& synopsis, const std::string& about,
                   po::options_description& options, const std::vector<std::string>& args,
                   po::variables_map& vm, bool wants_scenario, const std::string& default_positional,
                   const std::string& second) {
  options.add_options()("help,h", "show this help and exit");
  po::options_description all;
  all.add(options);
  po::positional_options_description pos;
  if (wants_scenario) {
    if (default_positional.empty())
      all.add_options()("scenario", po::value<std::string>(), "scenario file");
    else
      all.add_options()("scenario", po::value<std::string>()->default_value(default_positional), "input");
    pos.add("scenario", 1);
    if (!second.empty()) {
      all.add_options()(second.c_str(), po::value<std::string>(), "second file");
      pos.add(second.c_str(), 1);
    }
  }
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  if (vm.count("help") != 0) {
    std::cout << fmt::format("Usage: dpusim {} {}\n\n{}\n\n", name, synopsis, about) << options << "\n";
    return false;
  }
  po::notify(vm);
  // An empty --out would write into the working directory, next to whatever is there.
  if (vm.count("out") != 0 && vm["out"].as<std::string>().empty())
    throw po::error("--out needs a directory; an empty one would write into the current directory "
                    "(use --out . to mean that)");
  if (wants_scenario && vm.count("scenario") == 0)
    throw po::error(fmt::format("missing the scenario file (usage: dpusim {} {})", name, synopsis));
  if (wants_scenario && !second.empty() && vm.count(second) == 0)
    throw po::error(fmt::format("missing the {} file (usage: dpusim {} {})", second, name, synopsis));
  return true;
}

void add_common_options(po::options_description& options) {
  options.add_options()                                                                      //
      ("out,o", po::value<std::string>(), "output directory (default: out/<scenario name>)") //
      ("calibration", po::value<std::string>(),
       "calibration profile (from dpusim-calib) overriding catalog values") //
      ("calibration-shape",
       "take the profile's core counts even where its machine differs from the scenario's node (by default "
       "only its per-core rates are then taken)")                                                           //
      ("catalog", po::value<std::string>(), "catalog directory (default: the bundled models/catalog/data)") //
      ("progress", "report progress on standard error (default when it is a terminal)")                     //
      ("quiet,q", "print only errors");
}

catalog::Catalog load_catalog(const po::variables_map& vm) {
  auto cat =
      catalog::Catalog::load(vm.count("catalog") != 0 ? std::filesystem::path(vm["catalog"].as<std::string>())
                                                      : catalog::Catalog::default_directory());
  // An entry that cannot be read fails only the scenarios that use it (they are refused with its error).
  if (vm.count("quiet") == 0)
    for (const auto& b : cat.broken()) {
      const auto& at = b.error.where();
      std::cerr << fmt::format("{}{}: warning: {}{}; the {} entry \"{}\" is left out of the catalog (a "
                               "scenario that uses it is refused with this error)\n",
                               at.file, at.line > 0 ? fmt::format(":{}:{}", at.line, at.column) : "",
                               b.error.key().empty() ? "" : b.error.key() + ": ", b.error.message(), b.kind,
                               b.name);
    }
  return cat;
}

std::string model_line(const scenario::Scenario& s, const catalog::Catalog& cat) {
  const auto* node = cat.node(s.cluster.node);
  const auto* gpu = node != nullptr ? cat.gpu(node->gpu) : nullptr;
  return gpu != nullptr ? scenario::model_and_memory_line(s.workload, *gpu) : std::string();
}

std::filesystem::path output_directory(const po::variables_map& vm, const std::string& scenario_name) {
  if (vm.count("out") != 0)
    return vm["out"].as<std::string>();
  return std::filesystem::path("out") / scenario_name;
}

bool show_progress(const po::variables_map& vm) {
  if (vm.count("quiet") != 0)
    return false;
  return vm.count("progress") != 0 || ::isatty(STDERR_FILENO) != 0;
}

offload::Variant variant_option(const po::variables_map& vm, const scenario::Scenario& s,
                                const catalog::Catalog& cat) {
  if (vm.count("variant") == 0)
    return s.variants.front();
  try {
    return input::variant_for(s, cat, vm["variant"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw po::error(e.what());
  }
}

} // namespace dpusim::cli
