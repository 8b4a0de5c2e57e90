#include "hw_calib/cli/commands.hpp"
#include "hw_calib/cli/option_parsing.hpp"
#include "hw_calib/cli/usage_error.hpp"
#include "models/calibration/parameters.hpp"

#include <fmt/format.h>
#include <iostream>

namespace dpusim::calib {

namespace po = boost::program_options;

int parameters_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "dpusim-calib parameters [--markdown]\n\n"
      "Lists the calibratable parameters (the registry shared with the simulator): key, "
      "kind, the probe\nthat measures it and the model that uses it.\n\nOptions");
  opts.add_options()("help,h", "show this help")("markdown",
                                                 "print a Markdown table (as in docs/calibration.md)");
  const auto vm = parse_options("parameters", opts, args);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  const bool md = vm.count("markdown") > 0;
  if (md)
    std::cout << "| parameter | kind | probe | meaning | used by |\n|---|---|---|---|---|\n";
  for (const auto& def : calibration::parameter_registry()) {
    if (md)
      std::cout << fmt::format("| `{}` | {} | {} | {} | {} |\n", def.key, calibration::kind_name(def.kind),
                               def.probe, def.description, def.model_use);
    else
      std::cout << fmt::format("{:<38} {:<10} {}\n{:<38} {:<10} used by: {}\n", def.key, def.probe,
                               def.description, "", "", def.model_use);
  }
  return kExitOk;
}

} // namespace dpusim::calib
