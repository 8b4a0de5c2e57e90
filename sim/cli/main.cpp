// dpusim: simulate AI-training iterations on a cluster and compare host, NIC and DPU placements of the
// host-side functions.
#include "models/base/input_error.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/stack_limit.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <functional>
#include <iostream>
#include <map>

#ifndef DPUSIM_VERSION
#define DPUSIM_VERSION "0.0.0"
#endif

namespace {

constexpr const char* kUsage = R"(Usage: dpusim <command> [options]

Commands:
  run SCENARIO       simulate one variant of a scenario (default: its baseline); writes run.csv
  compare SCENARIO   simulate every variant of a scenario, one process each; prints a table; writes comparison.csv
  validate [DIR]     simulate the validation scenarios (default scenarios/validation); print the error table
  plan PLAN          simulate every point of a plan (axes over a scenario); writes points.csv; prints the best
  merge DIR...       join the points.csv of a plan's shards (plan --shard i/n)
  report DIR         render the outputs of run, compare or plan in DIR as one self-contained HTML page of figures
  nccl-tests SCENARIO  simulate one collective alone over a sweep of sizes; prints nccl-tests' table
  traffic SCENARIO TRAFFIC  simulate raw flows (incast, permutation, all-to-all...) on the scenario's fabric
  schema             print the scenario file reference
  catalog            list the hardware and model catalog
  variants           list the offload variants
  models             list the models: what each simulates, its scenario keys and calibration parameters

Options:
  -h, --help         show this help (dpusim <command> --help for a command's options)
  --version          print the version

Exit status: 0 success, 1 simulation or I/O failure, 2 bad input (usage, scenario, catalog or profile).
)";

/// Ends the process after a failure without running static destructors: a simulation stopped part-way
/// leaves SimGrid's global state half torn down, and its destructors must not run then. Every output
/// file is complete or absent by now (they are written atomically).
[[noreturn]] void fail_with(int status) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(status);
}

} // namespace

int main(int argc, char** argv) {
  using namespace dpusim::cli;
  (void)raise_stack_limit();
  const std::map<std::string, std::function<int(const std::vector<std::string>&)>> commands = {
      {"run", command_run},
      {"compare", command_compare},
      {"schema", command_schema},
      {"catalog", command_catalog},
      {"validate", command_validate},
      {"variants", command_variants},
      {"models", command_models},
      {"plan", command_plan},
      {"merge", command_merge},
      {"report", command_report},
      {"nccl-tests", command_nccl_tests},
      {"traffic", command_traffic}};
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return kBadInput;
  }
  const std::string first = args.front();
  if (first == "--help" || first == "-h" || first == "help") {
    std::cout << kUsage;
    return kOk;
  }
  if (first == "--version") {
    std::cout << "dpusim " << DPUSIM_VERSION << "\n";
    return kOk;
  }
  const auto it = commands.find(first);
  if (it == commands.end()) {
    std::cerr << fmt::format("dpusim: unknown command \"{}\"\n\n{}", first, kUsage);
    return kBadInput;
  }
  args.erase(args.begin());
  try {
    return it->second(args);
  } catch (const dpusim::InputError& e) {
    std::cerr << e.what() << "\n";
    fail_with(kBadInput);
  } catch (const boost::program_options::error& e) {
    std::cerr << fmt::format("dpusim {}: {}\n(see dpusim {} --help)\n", first, e.what(), first);
    fail_with(kBadInput);
  } catch (const std::exception& e) {
    std::cerr << fmt::format("dpusim {}: error: {}\n", first, e.what());
    fail_with(kFailure);
  }
}
