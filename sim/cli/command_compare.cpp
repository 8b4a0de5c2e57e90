#include "models/base/atomic_file.hpp"
#include "models/base/text_distance.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/common.hpp"
#include "sim/cli/compare_switches.hpp"
#include "sim/cli/process_pool.hpp"
#include "sim/cli/report.hpp"
#include "sim/cli/samples.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/model/registry.hpp"
#include "sim/model/sections/offload_model.hpp"
#include "sim/offload/attribution.hpp"
#include "sim/offload/variant.hpp"
#include "sim/report/attribution.hpp"
#include "sim/report/comparison.hpp"
#include "sim/report/run_info.hpp"
#include "sim/run/variant_run.hpp"
#include "sim/scenario/hardware.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace dpusim::cli {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

} // namespace

int command_compare(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()(
      "variants", po::value<std::string>(),
      "comma-separated variants: names from the scenario or placements such as host-tcp+encryption=nic "
      "(default: the scenario's baseline and variants; the first is the baseline)")(
      "attribute",
      "also simulate, for each variant, the baseline with each of its functions moved alone and the "
      "variant with each moved back, and report each function's share of the difference "
      "(<out>/attribution.csv)")(
      "links", "also write each variant's link usage, hottest link first, as <out>/links-<variant>.csv "
               "(the columns of run --links)");
  add_sample_options(options, true);
  add_report_option(options);
  add_common_options(options);
  po::variables_map vm;
  if (!parse_command(
          "compare", "SCENARIO.yaml [options]",
          "Simulates every offload variant of a scenario (one process each), prints a comparison table\n"
          "with the reasons for each difference and writes <out>/comparison.csv. A reason is named only\n"
          "where the thing it rests on moves the step alone: each function placed elsewhere and the device\n"
          "(NIC or DPU) are switched alone in simulations of their own (run-info.json's switches).\n"
          "Exit status: 0 done, 1 a simulation failed, 2 bad input (nothing written).",
          options, args, vm, true))
    return kOk;
  const auto cat = load_catalog(vm);
  const auto s = input::load_scenario(vm["scenario"].as<std::string>(), cat);
  std::vector<offload::Variant> variants = s.variants;
  if (vm.count("variants") != 0) {
    // A variant named more than once runs once, in the place it is first named.
    std::vector<std::string> specs;
    std::unordered_map<std::string, int> times; // how often each spec is named
    for (auto& spec : split_list(vm["variants"].as<std::string>()))
      if (++times[spec] == 1)
        specs.push_back(std::move(spec));
    if (specs.empty())
      throw po::error("--variants needs at least one variant");
    if (specs.size() > model::kMaxVariants)
      throw po::error("--variants names " + model::too_many_variants(specs.size()));
    std::unordered_map<std::string_view, const offload::Variant*> named;
    for (const auto& v : s.variants)
      named.emplace(v.name, &v);
    std::unordered_set<std::string> chosen;
    variants.clear();
    for (const auto& spec : specs) {
      try {
        const auto it = named.find(spec);
        auto v = it != named.end() ? *it->second : input::variant_for(s, cat, spec);
        if (chosen.insert(v.name).second)
          variants.push_back(std::move(v));
      } catch (const std::invalid_argument& e) {
        throw po::error(e.what());
      }
    }
    if (vm.count("quiet") == 0)
      for (const auto& spec : specs)
        if (const int n = times[spec]; n > 1)
          std::cerr << fmt::format("dpusim: --variants names {} {} times; it runs once\n", spec, n);
  }
  // With --attribute: each function moved alone from the baseline and moved back out of the target,
  // run after the variants themselves; a placement the device cannot run is reported, not simulated.
  const std::size_t compared = variants.size();
  auto schedule = [&](const offload::Variant& v, std::string& why) -> std::optional<std::size_t> {
    const auto* device = cat.nic(v.on_dpu ? s.cluster.dpu : s.cluster.nic);
    why = offload::unsupported(v, *device, scenario::requirements(s, cat));
    if (!why.empty())
      return std::nullopt;
    const auto same = std::find_if(variants.begin(), variants.end(), [&](const offload::Variant& o) {
      return o.placement == v.placement && o.on_dpu == v.on_dpu;
    });
    if (same != variants.end())
      return static_cast<std::size_t>(same - variants.begin());
    variants.push_back(v);
    return variants.size() - 1;
  };
  struct Pending {
    std::size_t target;
    offload::FunctionMove move;
    std::optional<std::size_t> alone, last; // indices into variants
    std::string note;
  };
  std::vector<Pending> moves;
  if (vm.count("attribute") != 0)
    for (std::size_t t = 1; t < compared; ++t)
      for (auto& m : offload::function_moves(variants.front(), variants[t], s.requirements())) {
        Pending p{t, std::move(m), std::nullopt, std::nullopt, {}};
        std::string why_alone;
        std::string why_last;
        p.alone = schedule(p.move.alone, why_alone);
        p.last = schedule(p.move.last, why_last);
        if (!why_alone.empty())
          p.note = "alone: " + why_alone;
        if (!why_last.empty())
          p.note += (p.note.empty() ? "" : "; ") + std::string("last: ") + why_last;
        moves.push_back(std::move(p));
      }
  // Each thing that differs between two explained variants, switched alone: an explanation names a cause
  // only where it moves the step by itself (report::explain).
  const auto pairs = plan_switches(variants, compared, s.requirements(), schedule);
  run::RunOptions ro;
  if (vm.count("calibration") != 0)
    ro.calibration = vm["calibration"].as<std::string>();
  ro.calibration_shape = vm.count("calibration-shape") != 0;
  const bool progress = show_progress(vm);
  const int jobs = jobs_requested(vm);
  const auto samples = sampling_requested(vm);
  if (samples && vm.count("attribute") != 0)
    throw po::error("--attribute cannot be combined with --samples or --launches");
  const bool links = vm.count("links") != 0;
  if (samples && links)
    throw po::error(
        "--links writes each variant's link usage in one run: it cannot be combined with --samples or "
        "--launches");
  // Each simulation process writes its variant's links where the parent reads them back into the
  // outputs' set (and the directory goes when the command ends, whatever happens).
  std::optional<TemporaryDirectory> scratch;
  if (links)
    scratch.emplace(std::filesystem::temp_directory_path(), "links");
  const auto links_file = [&](std::size_t i) {
    return scratch->path() / ("links-" + variants[i].name + ".csv");
  };
  std::vector<report::VariantSamples> sampled;
  if (samples) {
    int failed = 0;
    try {
      sampled =
          run_samples(s, cat, {variants.begin(), variants.begin() + static_cast<std::ptrdiff_t>(compared)},
                      ro, *samples, jobs, progress, failed);
    } catch (const std::runtime_error& e) {
      std::cerr << "dpusim: " << e.what() << "\n";
      return failed == kBadInput ? kBadInput : kFailure;
    }
  }
  // Sampled, the compared variants ran above; the switched ones run once, at the scenario's seed, and
  // explain nothing themselves.
  const std::size_t first_run = samples ? compared : 0;
  std::size_t finished = 0;
  const auto outcomes = run_in_processes(
      variants.size() - first_run, jobs,
      [&](std::size_t k) {
        const std::size_t i = first_run + k;
        auto variant_options = ro;
        if (links && i < compared)
          variant_options.links_path = links_file(i).string();
        variant_options.explain = i < compared;
        return report::serialize(run::run_variant(s, cat, variants[i], variant_options));
      },
      [&](std::size_t k, const JobOutcome& o) {
        ++finished;
        if (progress)
          std::cerr << fmt::format("[{}/{}] {} {}\n", finished, variants.size() - first_run,
                                   variants[first_run + k].name, o.exit_code == 0 ? "done" : "failed");
      });
  std::vector<report::VariantResult> results; // by index into variants
  for (const auto& v : sampled)
    results.push_back(v.samples.front()); // launch 0's sample 0: the scenario's own seeds
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    if (outcomes[k].exit_code != 0) {
      std::cerr << fmt::format("dpusim: variant {} failed: {}\n", variants[first_run + k].name,
                               outcomes[k].describe());
      return outcomes[k].exit_code == kBadInput ? kBadInput : kFailure;
    }
    results.push_back(report::deserialize(outcomes[k].output));
  }
  std::vector<double> steps;
  for (const auto& r : results)
    steps.push_back(r.metrics.step_time_s);
  report::Comparison c{variants.front().name,
                       {results.begin(), results.begin() + static_cast<std::ptrdiff_t>(compared)},
                       measured_switches(pairs, variants, steps, s.cluster.nic, s.cluster.dpu)};
  std::vector<report::Attribution> attributions;
  for (std::size_t t = 1; t < compared && !moves.empty(); ++t) {
    report::Attribution a{s.name,
                          variants[t].name,
                          variants.front().name,
                          results.front().metrics.effective_step_s(),
                          results[t].metrics.effective_step_s(),
                          {}};
    for (const auto& p : moves) {
      if (p.target != t)
        continue;
      report::Attribution::Row row{std::string(offload::function_name(p.move.function)),
                                   std::string(offload::site_name(p.move.from)),
                                   std::string(offload::site_name(p.move.to)),
                                   std::nullopt,
                                   std::nullopt,
                                   p.note};
      if (p.alone)
        row.alone_step_s = results[*p.alone].metrics.effective_step_s();
      if (p.last)
        row.last_step_s = results[*p.last].metrics.effective_step_s();
      a.rows.push_back(std::move(row));
    }
    attributions.push_back(std::move(a));
  }
  // Published as a set: all written first, then renamed into place together (models/base/atomic_file).
  OutputSet outputs(output_directory(vm, s.name));
  const auto out = outputs.add("comparison.csv", report::render_csv(c, model::registry().columns()));
  const auto attribution_out = out.parent_path() / "attribution.csv";
  if (vm.count("attribute") != 0)
    outputs.add("attribution.csv", report::render_attribution_csv(attributions));
  const auto sample_files = samples ? add_samples(outputs, sampled) : std::vector<std::filesystem::path>{};
  const auto explanations = report::explain(c, model::registry().explainers());
  report::RunContext run{"compare", samples, explanations, {"comparison.csv"}};
  if (vm.count("attribute") != 0)
    run.files.emplace_back("attribution.csv");
  for (const auto& f : sample_files)
    run.files.push_back(f.filename().string());
  std::vector<std::filesystem::path> link_files;
  for (std::size_t i = 0; links && i < compared; ++i) {
    const std::string name = "links-" + variants[i].name + ".csv";
    std::ifstream in(links_file(i), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in)
      throw std::runtime_error(fmt::format("cannot read back {}", links_file(i).string()));
    link_files.push_back(outputs.add(name, text.str()));
    run.files.push_back(name);
  }
  const auto info_out = outputs.add("run-info.json", report::render_run_info(s, c, run));
  outputs.publish();
  if (vm.count("quiet") == 0) {
    const auto& r0 = c.results.front();
    std::cout << fmt::format("{}: {} ({} nodes, {} GPUs, seed {})\n{}\n\n", s.name, s.description, r0.nodes,
                             r0.gpus, s.seed, model_line(s, cat));
    std::cout << report::render_table(c) << "\n";
    if (samples)
      std::cout << fmt::format("{} (step time, s):\n", report::sampling_text(s, *samples))
                << report::render_distribution_table(sampled) << "\n";
    if (const auto cores = report::render_cores_table(c); !cores.empty())
      std::cout << cores << "\n";
    for (const auto& line : explanations)
      std::cout << "- " << line << "\n";
    for (const auto& r : c.results)
      for (const auto& n : r.notes)
        std::cout << fmt::format("note ({}): {}\n", r.variant, n);
    for (const auto& a : attributions)
      std::cout << "\n" << report::render_attribution(a);
    std::cout << "\n" << report::render_gpu_performance(r0);
    if (const auto cal = report::render_calibration(r0); !cal.empty())
      std::cout << cal;
    std::cout << "\n" << report::render_simulation_summary(r0);
    std::cout << fmt::format("wrote {}\n", out.string());
    if (vm.count("attribute") != 0)
      std::cout << fmt::format("wrote {}\n", attribution_out.string());
    for (const auto& f : sample_files)
      std::cout << fmt::format("wrote {}\n", f.string());
    for (const auto& f : link_files)
      std::cout << fmt::format("wrote {}\n", f.string());
    std::cout << fmt::format("wrote {}\n", info_out.string());
  }
  if (vm.count("report") != 0)
    return render_report(out.parent_path(), out.parent_path() / "report.html", vm.count("quiet") != 0);
  return kOk;
}

} // namespace dpusim::cli
