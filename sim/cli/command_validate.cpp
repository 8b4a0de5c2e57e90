#include "models/base/atomic_file.hpp"
#include "models/base/yaml_reader.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/common.hpp"
#include "sim/cli/process_pool.hpp"
#include "sim/cli/samples.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/input/validation_targets.hpp"
#include "sim/run/variant_run.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <thread>

namespace dpusim::cli {
namespace {

struct Row {
  std::string scenario;
  std::string table;
  std::string metric;
  double published = 0;
  double predicted = 0;
  double step_time_s = 0;
  double wall_s = 0;
  [[nodiscard]] double error() const { return (predicted - published) / published; }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

int command_validate(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()("jobs,j", po::value<int>(), "simulation processes at once (default: one per core)")(
      "check", "fail (exit 1) when a table's error exceeds its target in <DIR>/targets.yaml")(
      "out,o", po::value<std::string>(), "output directory (default: out/validation)")(
      "catalog", po::value<std::string>(), "catalog directory (default: the bundled one)")(
      "progress", "report progress on standard error (default when it is a terminal)")("quiet,q",
                                                                                       "print only errors");
  po::variables_map vm;
  if (!parse_command(
          "validate", "[DIR] [options]",
          "Simulates every scenario in DIR that carries a published result (validation:), one process\n"
          "each, writes <out>/validation.csv and prints the relative error per row and per table.",
          options, args, vm, true, "scenarios/validation"))
    return kOk;
  const std::filesystem::path dir = vm["scenario"].as<std::string>();
  if (!std::filesystem::is_directory(dir))
    throw po::error(fmt::format("{} is not a directory of validation scenarios", dir.string()));
  const auto cat = load_catalog(vm);
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".yaml" && e.path().filename() != "targets.yaml")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<scenario::Scenario> scenarios;
  for (const auto& f : files) {
    auto s = input::load_scenario(f.string(), cat);
    if (s.validation)
      scenarios.push_back(std::move(s));
  }
  if (scenarios.empty())
    throw po::error(fmt::format("no scenario in {} has a validation: section", dir.string()));
  // The targets are read before anything runs: a mistake there costs no simulation and writes nothing.
  std::map<std::string, input::ValidationTarget> targets;
  if (std::filesystem::exists(dir / "targets.yaml")) {
    input::ValidationNames names;
    std::map<std::string, std::string> table_of_scenario;
    for (const auto& s : scenarios) {
      names.tables.insert(s.validation->table);
      names.scenarios.insert(s.name);
      table_of_scenario[s.name] = s.validation->table;
    }
    targets = input::parse_validation_targets(yaml::load_file((dir / "targets.yaml").string()), names,
                                              table_of_scenario);
  }

  const bool progress = show_progress(vm);
  const int jobs = jobs_requested(vm);
  std::size_t finished = 0;
  const auto outcomes = run_in_processes(
      scenarios.size(), jobs,
      [&](std::size_t i) {
        run::RunOptions run_options;
        run_options.explain = false; // the validation table reads steps, not notes
        return report::serialize(
            run::run_variant(scenarios[i], cat, scenarios[i].variants.front(), run_options));
      },
      [&](std::size_t i, const JobOutcome& o) {
        ++finished;
        if (progress)
          std::cerr << fmt::format("[{}/{}] {} {}\n", finished, scenarios.size(), scenarios[i].name,
                                   o.exit_code == 0 ? "done" : "failed");
      });
  std::vector<Row> rows;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].exit_code != 0) {
      std::cerr << fmt::format("dpusim validate: {} failed: {}\n", scenarios[i].file, outcomes[i].describe());
      return outcomes[i].exit_code == kBadInput ? kBadInput : kFailure;
    }
    const auto r = report::deserialize(outcomes[i].output);
    const auto& v = *scenarios[i].validation;
    const double predicted = v.metric == "tflops_per_gpu" ? r.metrics.tflops_per_gpu
                             : v.metric == "mfu"          ? r.metrics.mfu
                                                          : r.metrics.step_time_s * 1000.0;
    rows.push_back({scenarios[i].name, v.table, v.metric, v.published, predicted, r.metrics.step_time_s,
                    r.simulation_wall_s});
  }
  std::string csv = "scenario,table,metric,published,predicted,relative_error,step_time_s\n";
  for (const auto& r : rows)
    csv += fmt::format("{},{},{},{:.9g},{:.9g},{:.9g},{:.9g}\n", r.scenario, r.table, r.metric, r.published,
                       r.predicted, r.error(), r.step_time_s);
  const auto out = (vm.count("out") != 0 ? std::filesystem::path(vm["out"].as<std::string>())
                                         : std::filesystem::path("out") / "validation") /
                   "validation.csv";
  write_file_atomically(out, csv);

  std::map<std::string, std::vector<double>> errors;
  std::map<std::string, double> checked_max; // over the rows that are not known misses
  std::string misses;
  for (const auto& r : rows) {
    const double e = std::abs(r.error());
    errors[r.table].push_back(e);
    const auto t = targets.find(r.table);
    if (t != targets.end() && t->second.known_misses.contains(r.scenario)) {
      misses += fmt::format("known miss {} ({:+.1f}%): {}\n", r.scenario, 100 * r.error(),
                            t->second.known_misses.at(r.scenario));
      continue;
    }
    checked_max[r.table] = std::max(checked_max[r.table], e);
  }
  bool ok = true;
  std::string summary;
  for (const auto& [table, errs] : errors) {
    const double med = median(errs);
    const double mx = *std::max_element(errs.begin(), errs.end());
    std::string verdict;
    if (auto it = targets.find(table); it != targets.end()) {
      const bool pass = med <= it->second.median && checked_max[table] <= it->second.max;
      ok = ok && pass;
      std::size_t excluded = 0;
      for (const auto& r : rows)
        excluded += r.table == table && it->second.known_misses.contains(r.scenario) ? 1 : 0;
      verdict = fmt::format("  target median <= {:.0f}%, max <= {:.0f}%: {}{}", 100 * it->second.median,
                            100 * it->second.max, pass ? "met" : "NOT met",
                            excluded == 0 ? std::string()
                                          : fmt::format(" (max {:.1f}% without {} known miss)",
                                                        100 * checked_max[table], excluded));
    }
    summary += fmt::format("{:<24} rows {:>2}  median |error| {:5.1f}%  max |error| {:5.1f}%{}\n", table,
                           errs.size(), 100 * med, 100 * mx, verdict);
  }
  if (vm.count("quiet") == 0) {
    std::cout << fmt::format("{:<36} {:<18} {:>10} {:>10} {:>8}\n", "scenario", "metric", "published",
                             "predicted", "error");
    for (const auto& r : rows) {
      const double shown = r.metric == "mfu" ? 100 : 1; // MFU as a percentage
      std::cout << fmt::format("{:<36} {:<18} {:>10.1f} {:>10.1f} {:>+7.1f}%\n", r.scenario, r.metric,
                               shown * r.published, shown * r.predicted, 100 * r.error());
    }
    std::cout << "\n" << summary << misses << fmt::format("\nwrote {}\n", out.string());
  }
  if (vm.count("check") != 0 && !ok) {
    std::cerr << "dpusim validate: error targets not met\n" << summary;
    return kFailure;
  }
  return kOk;
}

} // namespace dpusim::cli
