// Boost.Program_options glue shared by the subcommands: parsing with errors turned into UsageError that
// name the option and point to `<command> --help`, and values with units ("64MiB", "400Gbps").
#pragma once

#include <boost/program_options.hpp>
#include <optional>
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

/// The pre-shared token of `serve` and its clients: the first line of --token-file when given, else the
/// DPUSIM_CALIB_TOKEN environment variable, else nothing. Throws UsageError for an unreadable file or an
/// unusable token. `source` says where it came from ("DPUSIM_CALIB_TOKEN", the file's path).
std::optional<std::string> token_option(const boost::program_options::variables_map& vm, std::string& source);

} // namespace dpusim::calib
