// The dpusim commands. Each returns the process exit status: 0 success, 1 a simulation or I/O failure,
// 2 bad input (usage, scenario, catalog or profile).
#pragma once

#include <string>
#include <vector>

namespace dpusim::cli {

enum ExitCode : int { kOk = 0, kFailure = 1, kBadInput = 2 };

int command_run(const std::vector<std::string>& args);
int command_compare(const std::vector<std::string>& args);
int command_schema(const std::vector<std::string>& args);
int command_catalog(const std::vector<std::string>& args);
int command_variants(const std::vector<std::string>& args);
int command_models(const std::vector<std::string>& args);
int command_validate(const std::vector<std::string>& args);
int command_plan(const std::vector<std::string>& args);
int command_merge(const std::vector<std::string>& args);
int command_report(const std::vector<std::string>& args);
int command_nccl_tests(const std::vector<std::string>& args);
int command_traffic(const std::vector<std::string>& args);

} // namespace dpusim::cli
