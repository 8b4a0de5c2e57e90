#include "hw_calib/cli/option_parsing.hpp"

#include "hw_calib/cli/usage_error.hpp"
#include "models/core/unit_parse.hpp"

#include <fmt/format.h>

namespace dpusim::calib {

namespace po = boost::program_options;

po::variables_map parse_options(const std::string& command, const po::options_description& options,
                                const std::vector<std::string>& args) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(fmt::format("{}: {} (see dpusim-calib {} --help)", command, e.what(), command));
  }
  return vm;
}

double parse_size_option(const std::string& option, const std::string& text) {
  try {
    const double v = units::parse_quantity<units::Bytes>(text).si();
    if (!(v > 0))
      throw units::UnitError("must be greater than zero");
    return v;
  } catch (const units::UnitError& e) {
    throw UsageError(fmt::format("--{} \"{}\": {}", option, text, e.what()));
  }
}

double parse_rate_option(const std::string& option, const std::string& text) {
  try {
    const double v = units::parse_quantity<units::DataRate>(text).si();
    if (!(v > 0))
      throw units::UnitError("must be greater than zero");
    return v;
  } catch (const units::UnitError& e) {
    throw UsageError(fmt::format("--{} \"{}\": {}", option, text, e.what()));
  }
}

} // namespace dpusim::calib
