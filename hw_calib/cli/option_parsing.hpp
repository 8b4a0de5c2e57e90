// Boost.Program_options glue shared by the subcommands: parsing with errors turned into UsageError that
// name the option and point to `<command> --help`, and values with units ("64MiB", "400Gbps").
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace dpusim::calib {

/// Parses `args` (without the command name) against `options`; throws UsageError.
boost::program_options::variables_map
parse_options(const std::string& command, const boost::program_options::options_description& options,
              const std::vector<std::string>& args);

/// "64MiB" -> bytes; throws UsageError naming the option and the valid units.
double parse_size_option(const std::string& option, const std::string& text);
/// "400Gbps" -> bytes per second; throws UsageError.
double parse_rate_option(const std::string& option, const std::string& text);

} // namespace dpusim::calib
