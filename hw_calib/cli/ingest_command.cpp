#include "hw_calib/cli/commands.hpp"
#include "hw_calib/cli/option_parsing.hpp"
#include "hw_calib/cli/usage_error.hpp"
#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/ingest/ingest.hpp"
#include "hw_calib/profile/profile_assembly.hpp"
#include "models/base/atomic_file.hpp"
#include "models/calibration/parameters.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <map>

namespace dpusim::calib {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr const char* kIngestHelp =
    "dpusim-calib ingest FILE... --out DIR [options]\n\n"
    "Reads recorded outputs of the tools engineers already run, recognises each one's tool and format from\n"
    "its content, checks and fits them as a live `run` would, and writes DIR/profile.yaml and\n"
    "DIR/raw/<probe>.csv, every parameter citing its file and SHA-256. Accepted: nccl-tests *_perf logs,\n"
    "perftest ib_{write,read,send}_{bw,lat}, fio JSON and normal output, iperf3 text and -J (client or\n"
    "server, -R), openssl speed, ethtool -k and -i, lscpu and lscpu -J, nvidia-smi (table or --query-gpu\n"
    "CSV), nvidia-smi topo -m, ibv_devinfo, ibstat, mst status -v, bfver (docs/calibration.md lists what\n"
    "each gives). Nothing is written unless every file is usable.\n"
    "Exit status: 0 written, 2 usage or input error (a file that is unreadable, not recognised, malformed,\n"
    "incomplete or inconsistent: the message names the file and, for a table's row, the line). ingest runs\n"
    "no probe, so it never exits with 1.\n\n"
    "Options";

struct Published {
  std::string key;
  std::string file;
};

} // namespace

int ingest_command(const std::vector<std::string>& args) {
  po::options_description opts(kIngestHelp);
  opts.add_options()("help,h", "show this help")("out,o", po::value<std::string>(),
                                                 "output directory (created if needed)")(
      "role", po::value<std::string>()->default_value("auto"),
      "profile role: auto (dpu_arm when bfver or a BlueField lscpu is given, else host_cpu), host_cpu, "
      "dpu_arm")("nccl-link-rate", po::value<std::string>(),
                 "link rate for the collective efficiency, e.g. 400Gbps")(
      "nccl-scope", po::value<std::string>()->default_value("network"),
      "network or nvlink: which efficiency")(
      "time-limit", po::value<double>()->default_value(10),
      "seconds to read each file (a pipe whose writer is slow or absent ends with an error)");
  po::options_description hidden;
  hidden.add_options()("file", po::value<std::vector<std::string>>(), "input files");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description positional;
  positional.add("file", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(fmt::format("ingest: {} (see dpusim-calib ingest --help)", e.what()));
  }
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (!vm.count("file"))
    throw UsageError("ingest: give at least one FILE (see dpusim-calib ingest --help)");
  if (!vm.count("out"))
    throw UsageError("ingest: --out DIR is required (see dpusim-calib ingest --help)");
  const fs::path out_dir = vm["out"].as<std::string>();
  if (out_dir.empty())
    throw UsageError("ingest: --out needs a directory; an empty one would write into the current directory");
  const std::string role = vm["role"].as<std::string>();
  if (role != "auto" && role != "host_cpu" && role != "dpu_arm")
    throw UsageError(fmt::format("--role \"{}\": valid values are auto, host_cpu, dpu_arm", role));
  IngestOptions options;
  if (vm.count("nccl-link-rate"))
    options.nccl_link_rate_Bps = parse_rate_option("nccl-link-rate", vm["nccl-link-rate"].as<std::string>());
  options.nccl_scope = vm["nccl-scope"].as<std::string>();
  if (options.nccl_scope != "network" && options.nccl_scope != "nvlink")
    throw UsageError(
        fmt::format("--nccl-scope \"{}\": valid values are network, nvlink", options.nccl_scope));
  InputLimits limits;
  const double time_limit = vm["time-limit"].as<double>();
  if (!(time_limit > 0) || time_limit > 3600)
    throw UsageError(fmt::format("--time-limit {}: must be in (0, 3600] seconds", time_limit));
  limits.time_limit_s = time_limit;
  const auto files = vm["file"].as<std::vector<std::string>>();

  // Every file is read and recognised first: the role may come from one of them.
  std::vector<std::pair<std::string, std::string>> texts; // path, text
  std::vector<std::string> errors;
  for (const auto& path : files) {
    try {
      texts.emplace_back(path, read_bounded_text(path, limits));
    } catch (const InputFileError& e) {
      errors.emplace_back(e.what());
    }
  }
  std::string chosen_role = role;
  std::string role_reason = "given with --role";
  if (role == "auto") {
    chosen_role = "host_cpu";
    role_reason = "no file points to a BlueField's Arm side";
    for (const auto& [path, text] : texts) {
      if (const auto format = detect_format(text))
        if (const auto hint = role_hint(*format, text)) {
          chosen_role = *hint;
          role_reason = fmt::format("{} is {} output of a BlueField's Arm side",
                                    fs::path(path).filename().string(), format_name(*format));
          break;
        }
    }
  }
  options.role = chosen_role;
  std::vector<IngestedFile> ingested;
  for (const auto& [path, text] : texts) {
    try {
      ingested.push_back(ingest_text(path, text, options));
    } catch (const InputFileError& e) {
      errors.emplace_back(e.what());
    }
  }
  // Two files giving the same parameter: which one is meant is the user's to say.
  std::map<std::string, std::string> given;
  for (const auto& f : ingested)
    for (const auto& p : f.result.params) {
      const auto [it, fresh] = given.emplace(p.key, f.path);
      if (!fresh)
        errors.push_back(fmt::format("{}: gives {}, which {} gives too: give one file per parameter", f.path,
                                     p.key, it->second));
    }
  if (!errors.empty()) {
    for (const auto& e : errors)
      std::cerr << "dpusim-calib: " << e << "\n";
    std::cerr << fmt::format("dpusim-calib: ingest: {} problem(s); nothing was written\n", errors.size());
    return kExitUsage;
  }

  calibration::Profile profile;
  profile.created = utc_timestamp();
  profile.role = chosen_role;
  profile.complete = true;
  profile.tools["dpusim-calib"] = DPUSIM_VERSION;
  std::string command_line = "dpusim-calib ingest";
  for (const auto& a : args)
    command_line += " " + a;
  profile.notes.push_back("command: " + command_line);
  profile.notes.push_back(fmt::format("role {}: {}", chosen_role, role_reason));
  std::map<std::string, SampleTable> raw;
  for (auto& f : ingested) {
    profile.notes.push_back(fmt::format("ingested {}: {}, {}", f.path, format_name(f.format), f.checksum));
    for (const auto& w : f.warnings)
      profile.notes.push_back(fmt::format("{}: {}", fs::path(f.path).filename().string(), w));
    for (auto& [k, v] : f.machine)
      profile.machine[k] = v;
    for (auto& [k, v] : f.result.tools)
      profile.tools[k] = v;
    for (auto& p : f.result.params)
      profile.set(p);
    if (!f.probe.empty() && !f.result.samples.empty())
      raw[f.probe].append(f.result.samples);
  }
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec)
    throw UsageError(
        fmt::format("--out {}: cannot create the directory: {}", out_dir.string(), ec.message()));
  try {
    // The raw samples first: a profile never points at samples that are not there.
    if (!raw.empty()) {
      OutputSet raw_set(out_dir / "raw");
      for (const auto& [probe, table] : raw)
        raw_set.add(probe + ".csv", table.to_csv());
      raw_set.publish();
    }
    OutputSet profile_set(out_dir);
    profile_set.add("profile.yaml", calibration::render_profile(profile));
    profile_set.publish();
  } catch (const std::runtime_error& e) {
    throw UsageError(fmt::format("--out {}: cannot write there: {}", out_dir.string(), e.what()));
  }

  for (const auto& f : ingested) {
    std::cout << fmt::format("{}: {} ({})\n", f.path, format_name(f.format), f.checksum);
    for (const auto& line : f.result.summary)
      std::cout << "  " << line << "\n";
    for (const auto& w : f.warnings)
      std::cout << "  warning: " << w << "\n";
  }
  std::cout << "\nParameters\n";
  for (const auto& p : profile.parameters) {
    const auto* def = calibration::find_parameter(p.key);
    std::cout << fmt::format("  {:<36} {:>14}  {}\n", p.key,
                             def ? calibration::format_parameter_value(*def, p.value)
                                 : fmt::format("{:g}", p.value),
                             calibration::provenance_name(p.provenance));
  }
  std::cout << fmt::format("\nWrote {} (role {})\n", (out_dir / "profile.yaml").string(), chosen_role);
  return kExitOk;
}

} // namespace dpusim::calib
