#include "hw_calib/cli/option_parsing.hpp"

#include "hw_calib/cli/usage_error.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/net/control_protocol.hpp"
#include "models/base/unit_parse.hpp"

#include <cstdlib>
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

std::optional<std::string> token_option(const po::variables_map& vm, std::string& source) {
  std::string token;
  if (vm.count("token-file") != 0) {
    source = vm["token-file"].as<std::string>();
    const auto text = read_text_file(source);
    if (!text)
      throw UsageError(fmt::format("--token-file {}: cannot read it", source));
    token = std::string(trim(std::string_view(*text).substr(0, text->find('\n'))));
  } else if (const char* env = std::getenv(kTokenEnvironment); env != nullptr && *env != '\0') {
    source = kTokenEnvironment;
    token = std::string(trim(env));
  } else {
    return std::nullopt;
  }
  if (const auto problem = token_problem(token))
    throw UsageError(fmt::format("the token from {}: {}", source, *problem));
  return token;
}

} // namespace dpusim::calib
