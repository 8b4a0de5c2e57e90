// The subcommands of dpusim-calib; each takes its arguments (after the command name) and returns the
// process exit status. Usage errors are thrown as UsageError.
#pragma once

#include <string>
#include <vector>

namespace dpusim::calib {

int discover_command(const std::vector<std::string>& args);
int run_command(const std::vector<std::string>& args, const std::string& program_path);
int serve_command(const std::vector<std::string>& args);
int parameters_command(const std::vector<std::string>& args);
int ingest_command(const std::vector<std::string>& args);

} // namespace dpusim::calib
