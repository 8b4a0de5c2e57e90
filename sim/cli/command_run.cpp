#include "models/base/atomic_file.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/common.hpp"
#include "sim/cli/report.hpp"
#include "sim/cli/samples.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/model/registry.hpp"
#include "sim/report/comparison.hpp"
#include "sim/report/run_info.hpp"
#include "sim/run/variant_run.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <iostream>

namespace dpusim::cli {

int command_run(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()("variant", po::value<std::string>(),
                        "offload variant to simulate: a name from the scenario or a placement such as "
                        "rdma-nic+storage=dpu_arm (default: the scenario's baseline)")(
      "trace", po::value<std::string>(), "write a Chrome trace-event JSON timeline (opens in Perfetto)")(
      "links", po::value<std::string>(),
      "write a CSV of every link the iteration's traffic crosses: bytes, mean and peak utilisation (and "
      "congestion where the scenario models it), hottest first");
  add_sample_options(options, true);
  add_report_option(options);
  add_common_options(options);
  po::variables_map vm;
  if (!parse_command(
          "run", "SCENARIO.yaml [options]",
          "Simulates one training iteration of one variant of a scenario and writes <out>/run.csv.", options,
          args, vm, true))
    return kOk;
  const auto cat = load_catalog(vm);
  const auto s = input::load_scenario(vm["scenario"].as<std::string>(), cat);
  const offload::Variant variant = variant_option(vm, s, cat);
  run::RunOptions ro;
  if (vm.count("calibration") != 0)
    ro.calibration = vm["calibration"].as<std::string>();
  ro.calibration_shape = vm.count("calibration-shape") != 0;
  if (vm.count("trace") != 0)
    ro.trace_path = vm["trace"].as<std::string>();
  if (vm.count("links") != 0)
    ro.links_path = vm["links"].as<std::string>();
  const bool progress = show_progress(vm);
  if (const auto sampling = sampling_requested(vm)) {
    if (vm.count("trace") != 0)
      throw po::error(
          "--trace writes one run's timeline: it cannot be combined with --samples or --launches");
    if (vm.count("links") != 0)
      throw po::error(
          "--links writes one run's link usage: it cannot be combined with --samples or --launches");
    int failed = 0;
    std::vector<report::VariantSamples> all;
    try {
      all = run_samples(s, cat, {variant}, ro, *sampling, jobs_requested(vm), progress, failed);
    } catch (const std::runtime_error& e) {
      std::cerr << "dpusim: " << e.what() << "\n";
      return failed == kBadInput ? kBadInput : kFailure;
    }
    const auto dir = output_directory(vm, s.name);
    report::Comparison c{variant.name, {all.front().samples.front()}, {}};
    OutputSet outputs(dir); // run.csv and the sample files, renamed into place together
    outputs.add("run.csv", report::render_csv(c, model::registry().columns()));
    const auto written = add_samples(outputs, all);
    report::RunContext run{"run", *sampling, {}, {"run.csv"}};
    for (const auto& w : written)
      run.files.push_back(w.filename().string());
    outputs.add("run-info.json", report::render_run_info(s, c, run));
    outputs.publish();
    if (vm.count("quiet") == 0) {
      std::cout << fmt::format("{}: {} ({} nodes, {} GPUs), {}\n{}\n\n", s.name, s.description,
                               c.results.front().nodes, c.results.front().gpus,
                               report::sampling_text(s, *sampling), model_line(s, cat));
      std::cout << report::render_distribution_table(all);
      std::cout << fmt::format("\nwrote {}\n", (dir / "run.csv").string());
      for (const auto& w : written)
        std::cout << fmt::format("wrote {}\n", w.string());
      std::cout << fmt::format("wrote {}\n", (dir / "run-info.json").string());
    }
    if (vm.count("report") != 0)
      return render_report(dir, dir / "report.html", vm.count("quiet") != 0);
    return kOk;
  }
  if (progress)
    ro.progress = [&variant](std::size_t done, std::size_t total) {
      std::cerr << fmt::format("\r{}: {}/{} tasks", variant.name, done, total) << (done == total ? "\n" : "")
                << std::flush;
    };
  const auto result = run::run_variant(s, cat, variant, ro);
  report::Comparison c{variant.name, {result}, {}};
  OutputSet outputs(output_directory(vm, s.name)); // run.csv and run-info.json, renamed into place together
  const auto out = outputs.add("run.csv", report::render_csv(c, model::registry().columns()));
  outputs.add("run-info.json", report::render_run_info(s, c, {"run", std::nullopt, {}, {"run.csv"}}));
  outputs.publish();
  if (vm.count("quiet") == 0) {
    std::cout << fmt::format("{}: {} ({} nodes, {} GPUs)\n{}\n\n", s.name, s.description, result.nodes,
                             result.gpus, model_line(s, cat));
    std::cout << report::render_table(c);
    if (const auto cores = report::render_cores_table(c); !cores.empty())
      std::cout << "\n" << cores;
    for (const auto& n : result.notes)
      std::cout << fmt::format("note: {}\n", n);
    std::cout << "\n" << report::render_simulation_summary(result);
    std::cout << "\n" << report::render_gpu_performance(result);
    if (const auto cal = report::render_calibration(result); !cal.empty())
      std::cout << cal;
    std::cout << fmt::format("\nwrote {}\n", out.string());
    std::cout << fmt::format("wrote {}\n", (out.parent_path() / "run-info.json").string());
  }
  if (vm.count("report") != 0)
    return render_report(out.parent_path(), out.parent_path() / "report.html", vm.count("quiet") != 0);
  return kOk;
}

} // namespace dpusim::cli
