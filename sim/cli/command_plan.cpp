// `dpusim plan PLAN.yaml` and `dpusim merge DIR...`: every point of a plan simulated in a process of its
// own, its rows journalled as they finish, points.csv published once all are in (docs/planner.md).
#include "models/base/atomic_file.hpp"
#include "models/base/input_file.hpp"
#include "models/base/text_distance.hpp"
#include "sim/cli/command.hpp"
#include "sim/cli/common.hpp"
#include "sim/cli/mpi_world.hpp"
#include "sim/cli/process_pool.hpp"
#include "sim/cli/report.hpp"
#include "sim/cli/samples.hpp"
#include "sim/planner/economics.hpp"
#include "sim/planner/journal.hpp"
#include "sim/planner/plan_file.hpp"
#include "sim/planner/plan_info.hpp"
#include "sim/planner/plan_run.hpp"
#include "sim/planner/point_selection.hpp"
#include "sim/planner/point_simulation.hpp"
#include "sim/planner/points.hpp"
#include "sim/planner/table.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <unistd.h>

namespace dpusim::cli {
namespace {

using namespace planner;

constexpr const char* kJournal = "points.journal";
constexpr const char* kShardFile = "shard.yaml";
constexpr const char* kPlanInfoFile = "plan-info.json"; // what the plan states: name, prices, power, restart

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  auto whole = [](const std::string& t) -> std::optional<std::size_t> {
    if (t.empty() || t.size() > 6 ||
        !std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); }))
      return std::nullopt;
    return std::stoul(t);
  };
  const auto i = slash == std::string::npos ? std::nullopt : whole(text.substr(0, slash));
  const auto n = slash == std::string::npos ? std::nullopt : whole(text.substr(slash + 1));
  if (!i || !n || *n < 1 || *i < 1 || *i > *n)
    throw po::error(fmt::format("--shard takes i/n with 1 <= i <= n (e.g. 2/8), found \"{}\"", text));
  return Shard{*i, *n};
}

std::string duration(double seconds) {
  if (seconds < 9.95)
    return fmt::format("{:.1f}s", seconds);
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s >= 3600)
    return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60)
    return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

/// Identifies the catalog a plan was simulated with: every file's name and content.
std::uint64_t catalog_fingerprint(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::uint64_t hash = fnv1a("catalog\n");
  for (const auto& f : files)
    hash = fnv1a(read_input_file(f.string(), "a catalog file"),
                 fnv1a(std::filesystem::relative(f, dir).generic_string() + "\n", hash));
  return hash;
}

/// Identifies a plan: its base scenario, axes, tokens, objectives and constraints, the catalog, and how
/// many points per configuration --refine simulates (-1: all of them).
std::uint64_t plan_fingerprint(const Plan& plan, const catalog::Catalog& cat, int refine) {
  std::string text = fmt::format("{:016x}\nrefine {}\n", catalog_fingerprint(cat.directory()), refine);
  text += YAML::Dump(plan.scenario);
  for (const auto& a : plan.axes) {
    text += fmt::format("\naxis {}:", a.spec->name);
    for (const auto& v : a.values)
      text += " " + YAML::Dump(v.node);
  }
  text += fmt::format("\ntokens {:.17g}\nobjectives", plan.train_tokens);
  for (const auto o : plan.objectives)
    text += " " + std::string(objective_name(o));
  const auto& c = plan.constraints;
  text += fmt::format("\ndeadline {:.17g} max {} min {} budget {:.17g} power cap {:.17g}\n",
                      c.deadline_days.value_or(-1), c.max_nodes.value_or(-1), c.min_nodes.value_or(-1),
                      c.budget_usd.value_or(-1), c.power_cap_kw.value_or(-1));
  auto opt = [](const std::optional<double>& v) { return fmt::format("{:.17g}", v.value_or(-1)); };
  if (const auto& g = plan.goodput)
    text += fmt::format("goodput {:.17g} {} {} {}\n", g->restart_s, opt(g->gpu_rate), opt(g->device_rate),
                        opt(g->node_rate));
  if (const auto& w = plan.power)
    text += fmt::format("power {:.17g} {} {}\n", w->pue, opt(w->usd_per_kwh), opt(w->switch_watts));
  if (const auto& k = plan.costs)
    text += fmt::format("costs {} {} {} {} {} {} {} {} {}\n", opt(k->node), opt(k->nic), opt(k->dpu),
                        opt(k->network_switch), opt(k->link), opt(k->life_s), opt(k->gpu_hour),
                        opt(k->host_core_hour), opt(k->host_core));
  if (const auto& k = plan.costs)
    for (const auto& [type, price_usd] : k->node_by_type)
      text += fmt::format("node price {} {:.17g}\n", type, price_usd);
  return fnv1a(text);
}

std::string shard_file(const SummarySpec& spec, std::uint64_t fingerprint, const Shard& shard,
                       std::size_t points) {
  std::string objectives;
  for (const auto o : spec.objectives)
    objectives += (objectives.empty() ? "" : ", ") + std::string(objective_name(o));
  std::string out =
      fmt::format("# one shard of a plan's points.csv: dpusim merge joins the shards\n"
                  "plan: {}\nfingerprint: \"{:016x}\"\nshard: {}\nshards: {}\npoints: {}\n"
                  "train_tokens: {:.17g}\nobjectives: [{}]\n",
                  spec.name, fingerprint, shard.index, shard.count, points, spec.train_tokens, objectives);
  if (spec.constraints.deadline_days)
    out += fmt::format("deadline_days: {:.17g}\n", *spec.constraints.deadline_days);
  if (spec.constraints.max_nodes)
    out += fmt::format("max_nodes: {}\n", *spec.constraints.max_nodes);
  if (spec.constraints.min_nodes)
    out += fmt::format("min_nodes: {}\n", *spec.constraints.min_nodes);
  if (spec.constraints.budget_usd)
    out += fmt::format("budget_usd: {:.17g}\n", *spec.constraints.budget_usd);
  if (spec.constraints.power_cap_kw)
    out += fmt::format("power_cap_kw: {:.17g}\n", *spec.constraints.power_cap_kw);
  if (spec.life_s)
    out += fmt::format("life_s: {:.17g}\ndevice_premium: {:.17g}\n", *spec.life_s, spec.device_premium);
  if (spec.cloud)
    out += "cloud: true\n";
  if (!spec.stated.empty()) {
    YAML::Emitter e;
    e << YAML::Flow << spec.stated;
    out += fmt::format("stated: {}\n", e.c_str());
  }
  if (!spec.description.empty()) {
    YAML::Emitter e;
    e << YAML::DoubleQuoted << spec.description;
    out += fmt::format("description: {}\n", e.c_str());
  }
  return out;
}

/// The axes a plan may have, for --help.
std::string axes_help() {
  std::string out = "Axes (the first varies slowest):\n";
  for (const auto& a : axis_specs())
    out += fmt::format("  {:<17} {}{} ({})\n", a.name, a.meaning,
                       a.choices.empty() ? std::string() : ": " + join(a.choices, " | "), a.scenario_key);
  out.pop_back();
  return out;
}

/// Progress on standard error: a bar redrawn in place on a terminal, a line per point otherwise.
class Progress {
public:
  Progress(bool shown, std::size_t total)
      : shown_(shown), bar_(::isatty(STDERR_FILENO) != 0), total_(total) {}
  void done(const std::string& what) {
    ++done_;
    if (!shown_)
      return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double eta = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
    if (bar_) {
      constexpr std::size_t kWidth = 30;
      const std::size_t filled = total_ == 0 ? kWidth : kWidth * done_ / total_;
      std::cerr << fmt::format("\r[{}{}] {}/{} points, ETA {}   ", std::string(filled, '#'),
                               std::string(kWidth - filled, '.'), done_, total_, duration(eta))
                << (done_ == total_ ? "\n" : "") << std::flush;
    } else {
      std::cerr << fmt::format("[{}/{}] {}, ETA {}\n", done_, total_, what, duration(eta));
    }
  }

private:
  bool shown_;
  bool bar_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// The MPI world as the plan's run sees its ranks.
class WorldRanks : public PlanRanks {
public:
  explicit WorldRanks(const MpiWorld& world) : world_(world) {}
  [[nodiscard]] int rank() const override { return world_.rank(); }
  [[nodiscard]] int size() const override { return world_.size(); }
  [[nodiscard]] std::vector<std::string> gather(const std::string& mine) override {
    world_.wait_for_all();
    return world_.gather(mine);
  }

private:
  const MpiWorld& world_;
};

/// dpusim plan's options (besides the plan file and --help).
po::options_description plan_options() {
  po::options_description options("Options");
  options.add_options()                                                                    //
      ("out,o", po::value<std::string>(), "output directory (default: out/<plan name>)")   //
      ("jobs,j", po::value<int>(), "simulation processes at once (default: one per core)") //
      ("shard", po::value<std::string>(),
       "simulate only shard i of n (i/n): the points p with p mod n = i-1; "
       "dpusim merge joins the shards' directories")                                        //
      ("resume", "keep the points an interrupted run of the same plan journalled in <out>") //
      ("refine", po::value<int>()->value_name("K"),
       "estimate every point without simulating it (closed forms: docs/models/estimator.md) and simulate "
       "only the K fastest estimates of each configuration (points that differ only in parallelism, "
       "recompute, zero and micro_batch); 0 simulates none. Points the estimator does not model are "
       "always simulated (noise, congestion, faults, other tenants); checkpoint writes are estimated too")  //
      ("catalog", po::value<std::string>(), "catalog directory (default: the bundled models/catalog/data)") //
      ("progress", "report progress on standard error (default when it is a terminal)")                     //
      ("quiet,q", "print only errors");
  add_report_option(options);
  return options;
}

} // namespace

int command_plan(const std::vector<std::string>& args) {
  auto options = plan_options();
  po::variables_map vm;
  try {
    if (!parse_command(
            "plan", "PLAN.yaml [options]",
            "Simulates every point of a plan (a base scenario and axes over it; docs/planner.md), one\n"
            "process each, and writes <out>/points.csv: every point's inputs, whether it is feasible\n"
            "(and why not), step time, tokens/s, MFU, host cores busy and days to train; with the plan's\n"
            "goodput, power and costs sections, time to train with failures, energy and cost per run;\n"
            "and <out>/pareto.csv, the points none beats on time, cost and energy. Prints the best\n"
            "point per objective, what offload changes and the DPU break-even premium. Finished points\n"
            "are journalled in <out>/points.journal until points.csv is written; --resume continues\n"
            "from there. Under mpirun (mpirun -n K dpusim plan ...) the K ranks split the points and\n"
            "rank 0 writes the files a single run writes.\n"
            "Exit status: 0 done, 1 a simulation or I/O failure, 2 bad input (nothing written).\n\n" +
                axes_help(),
            options, args, vm, true))
      return kOk;
  } catch (const po::error& e) {
    if (std::string(e.what()).rfind("missing the scenario file", 0) == 0)
      throw po::error("missing the plan file (usage: dpusim plan PLAN.yaml [options])");
    throw;
  }
  // Under mpirun every rank reads the same plan (bad input stops them all alike, before any collective
  // call) and simulates the points p with p mod ranks = rank; rank 0 gathers the rows and publishes.
  auto world = MpiWorld::join_if_launched();
  const bool sharded = vm.count("shard") != 0;
  if (world && sharded)
    throw po::error("--shard splits a plan between separate runs; under mpirun the ranks split it: "
                    "drop --shard");
  const bool lead = !world || world->rank() == 0; // prints, publishes
  const Shard shard =
      world     ? Shard{static_cast<std::size_t>(world->rank()) + 1, static_cast<std::size_t>(world->size())}
      : sharded ? parse_shard(vm["shard"].as<std::string>())
                : Shard{};
  int jobs = jobs_requested(vm);
  if (world && vm.count("jobs") == 0) // the machine's cores shared by its ranks
    jobs = std::max(1, jobs / world->local_size());
  if (vm.count("refine") != 0 && vm["refine"].as<int>() < 0)
    throw po::error(
        fmt::format("--refine takes a number of points, 0 or more (found {})", vm["refine"].as<int>()));
  const auto cat = load_catalog(vm);
  const auto plan = load_plan(vm["scenario"].as<std::string>(), cat);
  // -1: simulate every point.
  const int refine = vm.count("refine") != 0 ? vm["refine"].as<int>() : plan.refine.value_or(-1);
  const auto spec = summary_spec(plan);
  const std::size_t total = point_count(plan);

  // Every point of this shard built (its scenario read and checked) before anything is written, and
  // estimated (the estimated_step_time_s column); with --refine the ranking within a configuration spans
  // the whole plan, so every shard estimates every point.
  const std::uint64_t fingerprint = plan_fingerprint(plan, cat, refine);
  // The journal's rows are points.csv's: a journal of a dpusim with other columns is another plan's.
  auto selection = select_points(plan, cat, spec, refine, shard,
                                 fnv1a(fmt::format("{:016x} shard {}/{}\n{}", fingerprint, shard.index,
                                                   shard.count, csv_line(table_columns()))));
  const auto& points = selection.points;

  const auto out = output_directory(vm, plan.name);
  // Each rank journals its own points (on its machine's view of --out); rank 0 publishes.
  const std::string journal_name =
      world ? fmt::format("points.rank-{}-of-{}.journal", world->rank(), world->size()) : kJournal;
  std::optional<OutputSet> outputs;
  const bool quiet = vm.count("quiet") != 0 || !lead;
  std::optional<Progress> progress;
  PlanRunSettings settings{out / journal_name, selection.journal_key, vm.count("resume") != 0, refine, [&] {
                             if (lead) // the journal lives there while the plan runs
                               outputs.emplace(out, OutputSet::NewDirectory::created);
                             else
                               std::filesystem::create_directories(out);
                           }};
  std::optional<WorldRanks> ranks;
  if (world)
    ranks.emplace(*world);
  // From here on, no rank may leave before the collective calls below: what fails is a failure to report.
  auto run = run_plan(
      selection, spec, settings,
      [&](const std::vector<std::size_t>& to_run,
          const std::function<void(std::size_t, const PointOutcome&)>& done) {
        run_in_processes(
            to_run.size(), jobs,
            [&](std::size_t k) { return simulate_point(plan, cat, points[to_run[k]].index); },
            [&](std::size_t k, const JobOutcome& o) {
              done(k, o.exit_code == kOk ? PointOutcome{true, o.output, {}}
                                         : PointOutcome{false, {}, o.describe()});
            });
      },
      ranks ? &*ranks : nullptr,
      [&](const Journal& journal, std::size_t to_simulate) {
        if (!quiet && !journal.kept().empty())
          std::cerr << fmt::format("dpusim plan: resuming: {} points from {}, {} to simulate\n",
                                   journal.kept().size(), (out / journal_name).string(), to_simulate);
        progress.emplace(show_progress(vm) && lead, to_simulate);
      },
      [&](const BuiltPoint& p, std::string_view status) {
        progress->done(
            fmt::format("point {} ({} nodes, {}) {}", p.index, p.inputs[0], p.inputs.back(), status));
      });
  auto& rows = run.rows;
  const auto& failures = run.failures;
  if (lead && !failures.empty()) {
    for (const auto& f : failures)
      std::cerr << "dpusim plan: " << f << "\n";
    std::cerr << fmt::format("dpusim plan: nothing published; the finished points are in {} (--resume)\n",
                             (out / (world ? "points.rank-*.journal" : kJournal)).string());
  }
  // Rank 0 publishes; every rank removes its journal once the set is in place.
  std::string published = failures.empty() ? "" : "failed";
  std::filesystem::path csv;
  std::filesystem::path pareto;
  if (lead && failures.empty()) {
    try {
      csv = outputs->add("points.csv", render_points_csv(rows));
      // A shard's rows are not the plan's: merge writes the plan's pareto.csv.
      if (!sharded) {
        pareto = outputs->add("pareto.csv", render_pareto_csv(rows));
        outputs->add(kPlanInfoFile, render_plan_info(spec, total));
      } else
        outputs->add(kShardFile, shard_file(spec, fingerprint, shard, total));
      outputs->publish();
    } catch (const std::exception& e) {
      if (!world)
        throw;
      std::cerr << fmt::format("dpusim plan: {}\n", e.what());
      published = "failed";
    }
  }
  if (world)
    published = world->broadcast(published);
  if (!published.empty())
    return kFailure;
  run.journal->remove();
  if (!quiet) {
    if (sharded)
      std::cout << fmt::format("shard {}/{}: {} of the plan's {} points\n", shard.index, shard.count,
                               rows.size(), total);
    std::cout << render_summary(rows, spec)
              << (sharded ? fmt::format("wrote {}\n", csv.string())
                          : fmt::format("wrote {} and {}\n", csv.string(), pareto.string()));
  }
  if (lead && vm.count("report") != 0)
    return render_report(out, out / "report.html", vm.count("quiet") != 0);
  return kOk;
}

int command_merge(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()                                                                  //
      ("out,o", po::value<std::string>(), "output directory (default: out/<plan name>)") //
      ("quiet,q", "print only errors");
  po::options_description all;
  all.add(options);
  all.add_options()("help,h", "show this help and exit")("dirs", po::value<std::vector<std::string>>(),
                                                         "shards");
  po::positional_options_description pos;
  pos.add("dirs", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  if (vm.count("help") != 0) {
    std::cout << "Usage: dpusim merge DIR... [options]\n\n"
                 "Joins the outputs of `dpusim plan --shard i/n` (each DIR holds a shard's points.csv and\n"
                 "shard.yaml) into one points.csv, the same file a run without --shard writes, and prints\n"
                 "its summary. Every shard of the plan must be there, once.\n"
                 "Exit status: 0 done, 1 an I/O failure, 2 bad input (nothing written).\n\n"
              << options << "\n";
    return kOk;
  }
  po::notify(vm);
  if (vm.count("dirs") == 0)
    throw po::error("missing the shards' directories (usage: dpusim merge DIR... [options])");
  if (vm.count("out") != 0 && vm["out"].as<std::string>().empty())
    throw po::error("--out needs a directory");

  std::optional<SummarySpec> spec;
  std::string fingerprint;
  std::size_t shards = 0;
  std::size_t total = 0;
  std::set<std::size_t> seen_shards;
  std::map<std::size_t, std::vector<std::string>> rows;
  for (const auto& dir : vm["dirs"].as<std::vector<std::string>>()) {
    const auto meta_path = std::filesystem::path(dir) / kShardFile;
    const auto meta = yaml::load_file(meta_path.string());
    auto m = meta.as_map();
    m.declare({"plan", "fingerprint", "shard", "shards", "points", "train_tokens", "objectives",
               "deadline_days", "max_nodes", "min_nodes", "budget_usd", "power_cap_kw", "life_s",
               "device_premium", "cloud", "stated", "description"});
    SummarySpec s;
    s.name = m.required("plan").as_string();
    const auto fp_node = m.required("fingerprint");
    const auto fp = fp_node.as_string();
    const auto index_node = m.required("shard");
    const auto index = static_cast<std::size_t>(index_node.as_int(1, 1'000'000));
    const auto count_node = m.required("shards");
    const auto count = static_cast<std::size_t>(count_node.as_int(1, 1'000'000));
    const auto points = static_cast<std::size_t>(m.required("points").as_int(1, 1'000'000'000));
    s.train_tokens = m.required("train_tokens").as_number(1, 1e18);
    for (const auto& o : m.required("objectives").as_sequence().items())
      s.objectives.push_back(objective_named(o.as_choice(objective_names())));
    if (auto d = m.optional("deadline_days"))
      s.constraints.deadline_days = d->as_number(0, 1e12);
    if (auto n = m.optional("max_nodes"))
      s.constraints.max_nodes = static_cast<int>(n->as_int(1, 1'000'000));
    if (auto n = m.optional("min_nodes"))
      s.constraints.min_nodes = static_cast<int>(n->as_int(1, 1'000'000));
    if (auto b = m.optional("budget_usd"))
      s.constraints.budget_usd = b->as_number(0, 1e18);
    if (auto c = m.optional("power_cap_kw"))
      s.constraints.power_cap_kw = c->as_number(0, 1e18);
    if (auto l = m.optional("life_s"))
      s.life_s = l->as_number(1, 1e12);
    if (auto p = m.optional("device_premium"))
      s.device_premium = p->as_number(-1e18, 1e18);
    if (auto c = m.optional("cloud"))
      s.cloud = c->as_bool();
    if (auto st = m.optional("stated"))
      for (const auto& line : st->as_sequence().items())
        s.stated.push_back(line.as_string());
    if (auto d = m.optional("description"))
      s.description = d->as_string();
    m.finish();
    if (index > count)
      index_node.fail(fmt::format("shard {} of {} does not exist", index, count));
    if (!spec) {
      spec = s;
      fingerprint = fp;
      shards = count;
      total = points;
    } else if (fp != fingerprint || count != shards || points != total) {
      fp_node.fail(
          fmt::format("this shard is of another plan or split (fingerprint {}, {} shards, {} points) "
                      "than the first one given (fingerprint {}, {} shards, {} points)",
                      fp, count, points, fingerprint, shards, total));
    }
    if (!seen_shards.insert(index).second)
      index_node.fail(fmt::format("shard {}/{} is given twice", index, count));
    const auto csv_path = std::filesystem::path(dir) / "points.csv";
    std::vector<std::vector<std::string>> table;
    try {
      table = parse_csv(read_input_file(csv_path.string(), "a points.csv"));
    } catch (const std::runtime_error& e) {
      throw InputError(Location{csv_path.string(), 0, 0}, "", e.what());
    }
    if (table.empty() || table.front() != table_columns())
      throw InputError(Location{csv_path.string(), 1, 1}, "",
                       "not a points.csv of this dpusim (its header differs)");
    for (std::size_t r = 1; r < table.size(); ++r) {
      const auto& row = table[r];
      const auto point =
          row.size() == table_columns().size() ? std::strtoull(row[0].c_str(), nullptr, 10) : total;
      if (point >= total || std::to_string(point) != row[0] || point % count != index - 1 ||
          !rows.emplace(point, row).second)
        throw InputError(Location{csv_path.string(), static_cast<int>(r + 1), 1}, "",
                         fmt::format("row {} is not a point of shard {}/{} of a {}-point plan", r + 1, index,
                                     count, total));
    }
  }
  if (seen_shards.size() != shards) {
    std::string missing;
    for (std::size_t i = 1; i <= shards; ++i)
      if (seen_shards.count(i) == 0)
        missing += (missing.empty() ? "" : ", ") + fmt::format("{}/{}", i, shards);
    throw po::error(fmt::format("shards missing: {}", missing));
  }
  if (rows.size() != total)
    throw po::error(fmt::format("the shards hold {} of the plan's {} points", rows.size(), total));
  std::vector<std::vector<std::string>> ordered;
  for (auto& [point, row] : rows)
    ordered.push_back(std::move(row));
  const auto out = output_directory(vm, spec->name);
  OutputSet outputs(out);
  const auto csv = outputs.add("points.csv", render_points_csv(ordered));
  const auto pareto = outputs.add("pareto.csv", render_pareto_csv(ordered));
  outputs.add(kPlanInfoFile, render_plan_info(*spec, total));
  outputs.publish();
  if (vm.count("quiet") == 0)
    std::cout << render_summary(ordered, *spec)
              << fmt::format("wrote {} and {}\n", csv.string(), pareto.string());
  return kOk;
}

} // namespace dpusim::cli
