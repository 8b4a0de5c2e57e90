#include "hw_calib/cli/commands.hpp"
#include "hw_calib/cli/option_parsing.hpp"
#include "hw_calib/cli/usage_error.hpp"
#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/interrupt.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/discover/machine_discovery.hpp"
#include "hw_calib/discover/machine_summary.hpp"
#include "hw_calib/net/control_protocol.hpp"
#include "hw_calib/parsers/format_detection.hpp"
#include "hw_calib/parsers/gpu_probe_parser.hpp"
#include "hw_calib/parsers/nccl_tests_parser.hpp"
#include "hw_calib/parsers/parse_error.hpp"
#include "hw_calib/probes/storage_probe.hpp"
#include "hw_calib/profile/profile_assembly.hpp"
#include "models/base/atomic_file.hpp"
#include "models/base/text_distance.hpp"
#include "models/calibration/parameters.hpp"
#include "models/calibration/plausibility.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>

namespace dpusim::calib {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> parse_probe_list(const std::string& text) {
  std::vector<std::string> out;
  const auto valid = probe_names();
  for (const auto part : split_on(text, ',')) {
    const std::string name(trim(part));
    if (name.empty())
      continue;
    if (find_probe(name) == nullptr) {
      const std::string hint = did_you_mean(name, valid);
      throw UsageError(fmt::format(
          "--probes: unknown probe \"{}\"{}; valid probes: {}", name,
          hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint), join(valid)));
    }
    if (std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(name);
  }
  if (out.empty())
    throw UsageError(fmt::format("--probes is empty; valid probes: {}", join(valid)));
  return out;
}

void parse_peer(const std::string& text, ProbeSettings& s) {
  // HOST, HOST:PORT or [IPv6]:PORT
  auto port_from = [&](const std::string& digits) {
    const auto port = parse_integer(digits);
    if (!port || *port < 1 || *port > 65535)
      throw UsageError(fmt::format("--peer \"{}\": the port must be a number in 1..65535", text));
    s.peer_port = static_cast<int>(*port);
  };
  std::string host = text;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string::npos)
      throw UsageError(fmt::format("--peer \"{}\": missing ']'", text));
    host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':')
        throw UsageError(fmt::format("--peer \"{}\": expected [ADDRESS]:PORT", text));
      port_from(text.substr(close + 2));
    }
  } else if (const auto colon = text.rfind(':'); colon != std::string::npos && text.find(':') == colon) {
    host = text.substr(0, colon);
    port_from(text.substr(colon + 1));
  }
  if (host.empty())
    throw UsageError("--peer: empty host name");
  s.peer_host = host;
}

// A recorded nccl-tests log is an input: a file that is not one, or is cut short, is an input error
// (exit status 2) before anything runs, not a probe that fails half-way.
void check_nccl_output(const fs::path& path) {
  const std::string text = read_bounded_text(path);
  const auto format = detect_format(text);
  if (format && *format != InputFormat::nccl_tests)
    throw InputFileError(
        path.string(), 0,
        fmt::format("--nccl-output: this is {} output, not nccl-tests'", format_name(*format)));
  try {
    (void)parse_nccl_tests(text);
  } catch (const ParseError& e) {
    throw InputFileError(path.string(), 0, fmt::format("--nccl-output: {}", e.what()));
  }
}

void print_parameters(const calibration::Profile& profile) {
  std::cout << "\nParameters\n";
  for (const auto& p : profile.parameters) {
    const auto* def = calibration::find_parameter(p.key);
    std::cout << fmt::format(
        "  {:<36} {:>14}  {}{}\n", p.key,
        def ? calibration::format_parameter_value(*def, p.value) : fmt::format("{:g}", p.value),
        calibration::provenance_name(p.provenance),
        p.fit ? fmt::format(" ({}, {} samples)", p.fit->model, p.fit->samples) : std::string());
  }
}

} // namespace

int run_command(const std::vector<std::string>& args, const std::string& program_path) {
  po::options_description opts(fmt::format(
      "dpusim-calib run --out DIR [options]\n\n"
      "Runs probes and writes DIR/profile.yaml and DIR/raw/<probe>.csv. Probes: {}.\n"
      "Exit status: 0 all requested probes ran or were skipped (reasons in the profile's notes), 1 a probe\n"
      "failed at run time, 2 usage or input error (an option, or a file given with --nccl-output that is not "
      "a\n"
      "complete nccl-tests log), 3 with --strict, a measurement outside its plausible range or unstable\n"
      "(the profile says complete: false), 128+N interrupted by signal N (the partial profile says "
      "complete: false).\n\nOptions",
      join(probe_names())));
  opts.add_options()("help,h", "show this help")("out,o", po::value<std::string>(),
                                                 "output directory (created if needed)")(
      "probes,p", po::value<std::string>()->default_value("tcp,rdma,crypto,storage,os-noise,memory,nccl"),
      "comma-separated probes to run; gpu runs after memory when a GPU is present")(
      "peer", po::value<std::string>(), "HOST[:PORT] running `dpusim-calib serve` (default: loopback)")(
      "token-file", po::value<std::string>(),
      "file whose first line is the peer's token (default: $DPUSIM_CALIB_TOKEN; needed with --peer)")(
      "duration", po::value<double>()->default_value(10), "measurement seconds per probe")(
      "quick", "short measurements (1.5 s per probe, smaller buffers) for smoke tests and CI")(
      "strict", "refuse measurements outside their plausible range or unstable within the run (warned "
                "about either way): the profile says complete: false and the exit status is 3")(
      "time-limit", po::value<double>()->default_value(0),
      "hard limit per probe in seconds; children are killed at the limit (default: 4 x duration + 60)")(
      "role", po::value<std::string>()->default_value("auto"),
      "profile role: auto (from discover), host_cpu or dpu_arm")(
      "storage-dir", po::value<std::string>(),
      "directory for the storage probe's temporary file (default /var/tmp); nothing else is written")(
      "storage-file", po::value<std::string>(),
      "read this existing file or block device instead (read-only)")(
      "storage-tool", po::value<std::string>()->default_value("auto"),
      "auto (fio when installed), builtin or fio")(
      "storage-size", po::value<std::string>(),
      "size of the temporary file (default 1GiB, quick 64MiB; at most 64GiB, and the free space must "
      "exceed it by a tenth, at least 64MiB)")("memcpy-size", po::value<std::string>(),
                                               "largest memcpy buffer (default 512MiB, quick 128MiB)")(
      "nccl-output", po::value<std::string>(),
      "parse this recorded all_reduce_perf output instead of running it")(
      "nccl-link-rate", po::value<std::string>(), "link rate for the collective efficiency, e.g. 400Gbps")(
      "nccl-scope", po::value<std::string>()->default_value("network"),
      "network or nvlink: which efficiency")("nccl-gpus", po::value<int>()->default_value(0),
                                             "-g for all_reduce_perf (0: GPUs found)")(
      "gpu-csv", po::value<std::string>(),
      "parse this recorded dpusim-calib-gpu output instead of running it")(
      "rdma-device", po::value<std::string>()->default_value(""), "-d for perftest (e.g. mlx5_0)");
  const auto vm = parse_options("run", opts, args);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  if (!vm.count("out"))
    throw UsageError("run: --out DIR is required (see dpusim-calib run --help)");
  const fs::path out_dir = vm["out"].as<std::string>();
  if (out_dir.empty())
    throw UsageError("run: --out needs a directory; an empty one would write into the current directory");
  std::vector<std::string> probes = parse_probe_list(vm["probes"].as<std::string>());

  ProbeSettings s;
  const bool quick = vm.count("quick") > 0;
  const bool strict = vm.count("strict") > 0;
  // Checked even where --quick replaces it: an invalid value given is an error either way.
  const double duration = vm["duration"].as<double>();
  if (!(duration > 0) || duration > 3600)
    throw UsageError(fmt::format("--duration {}: must be in (0, 3600] seconds", duration));
  s.duration_s = quick ? 1.5 : duration;
  const double limit = vm["time-limit"].as<double>();
  if (limit < 0)
    throw UsageError("--time-limit must be positive (or 0 for the default)");
  s.time_limit_s = limit > 0 ? limit : 4 * s.duration_s + 60;
  if (vm.count("peer")) {
    parse_peer(vm["peer"].as<std::string>(), s);
    std::string source;
    const auto token = token_option(vm, source);
    if (!token)
      throw UsageError(fmt::format("--peer: the peer's serve only answers with its token: set {} or give "
                                   "--token-file (serve prints the token it generated when given none)",
                                   kTokenEnvironment));
    s.peer_token = *token;
  }
  if (vm.count("storage-dir")) {
    s.storage_dir = vm["storage-dir"].as<std::string>();
    if (!fs::is_directory(s.storage_dir))
      throw UsageError(fmt::format("--storage-dir {}: not a directory", s.storage_dir.string()));
  }
  if (vm.count("storage-file")) {
    s.storage_file = vm["storage-file"].as<std::string>();
    if (!fs::exists(*s.storage_file))
      throw UsageError(fmt::format("--storage-file {}: no such file or device", s.storage_file->string()));
  }
  s.storage_tool = vm["storage-tool"].as<std::string>();
  if (s.storage_tool != "auto" && s.storage_tool != "builtin" && s.storage_tool != "fio")
    throw UsageError(
        fmt::format("--storage-tool \"{}\": valid values are auto, builtin, fio", s.storage_tool));
  s.storage_size_bytes = vm.count("storage-size")
                             ? parse_size_option("storage-size", vm["storage-size"].as<std::string>())
                         : quick ? 64.0 * 1024 * 1024
                                 : 1024.0 * 1024 * 1024;
  if (std::find(probes.begin(), probes.end(), "storage") != probes.end() && !s.storage_file) {
    // What a run killed with SIGKILL left there goes first: it may be what fills the disk.
    for (const auto& stale : remove_stale_temporaries(storage_directory(s)))
      std::cout << fmt::format("removed {}, a temporary file left by an earlier run\n", stale.string());
    if (const auto problem = storage_space_problem(s.storage_size_bytes, storage_directory(s)))
      throw UsageError(*problem);
  }
  s.memcpy_max_bytes = vm.count("memcpy-size")
                           ? parse_size_option("memcpy-size", vm["memcpy-size"].as<std::string>())
                       : quick ? 128.0 * 1024 * 1024
                               : 512.0 * 1024 * 1024;
  if (vm.count("nccl-output")) {
    s.nccl_output = vm["nccl-output"].as<std::string>();
    check_nccl_output(*s.nccl_output);
  }
  if (vm.count("nccl-link-rate"))
    s.nccl_link_rate_Bps = parse_rate_option("nccl-link-rate", vm["nccl-link-rate"].as<std::string>());
  s.nccl_scope = vm["nccl-scope"].as<std::string>();
  if (s.nccl_scope != "network" && s.nccl_scope != "nvlink")
    throw UsageError(fmt::format("--nccl-scope \"{}\": valid values are network, nvlink", s.nccl_scope));
  s.nccl_gpus = vm["nccl-gpus"].as<int>();
  if (vm.count("gpu-csv")) {
    s.gpu_csv = vm["gpu-csv"].as<std::string>();
    const std::string text = read_bounded_text(*s.gpu_csv);
    try {
      (void)parse_gpu_probe_csv(text);
    } catch (const ParseError& e) {
      const auto format = detect_format(text);
      throw InputFileError(s.gpu_csv->string(), 0,
                           format ? fmt::format("--gpu-csv: this is {} output, not dpusim-calib-gpu's CSV",
                                                format_name(*format))
                                  : fmt::format("--gpu-csv: {}", e.what()));
    }
  }
  s.rdma_device = vm["rdma-device"].as<std::string>();
  s.helper_dir = fs::path(program_path).parent_path();
  const std::string role = vm["role"].as<std::string>();
  if (role != "auto" && role != "host_cpu" && role != "dpu_arm")
    throw UsageError(fmt::format("--role \"{}\": valid values are auto, host_cpu, dpu_arm", role));

  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec)
    throw UsageError(
        fmt::format("--out {}: cannot create the directory: {}", out_dir.string(), ec.message()));
  const fs::path profile_path = out_dir / "profile.yaml";

  install_interrupt_handlers();
  std::cout << "== discover\n";
  MachineInfo machine = discover_machine(DiscoverOptions{});
  if (role != "auto")
    machine.role = role;
  std::cout << render_machine_summary(machine);
  const bool has_gpu = !machine.gpus.empty() || s.gpu_csv.has_value();
  if (has_gpu && std::find(probes.begin(), probes.end(), "memory") != probes.end() &&
      std::find(probes.begin(), probes.end(), "gpu") == probes.end())
    probes.insert(std::find(probes.begin(), probes.end(), "memory") + 1, "gpu");

  calibration::Profile profile = base_profile(machine);
  std::string command_line = "dpusim-calib run";
  for (const auto& a : args)
    command_line += " " + a;
  profile.notes.push_back("command: " + command_line);
  // Written before the first probe and after each one, marked incomplete until the end: whatever stops the
  // run, the folder holds a valid profile.
  profile.complete = false;
  calibration::save_profile(profile, profile_path.string());

  bool failed = false;
  int interrupted_by = 0;
  std::vector<std::string> warnings; // measurements not to trust
  for (const auto& name : probes) {
    const ProbeDef* def = find_probe(name);
    std::cout << fmt::format("\n== {}: {}\n", name, def->description);
    ProbeResult result;
    try {
      const ProbeContext ctx(s, machine, name);
      result = def->run(ctx);
    } catch (const Interrupted& e) {
      interrupted_by = e.signal_number();
      result.status = ProbeStatus::failed;
      result.error = fmt::format("interrupted by {}", signal_name(interrupted_by));
    } catch (const std::exception& e) {
      result = ProbeResult{};
      result.status = ProbeStatus::failed;
      result.error = e.what();
    }
    if (result.status != ProbeStatus::failed && stop_requested())
      interrupted_by = stop_signal();
    for (const auto& line : result.summary)
      std::cout << "  " << line << "\n";
    for (const auto& note : result.notes)
      std::cout << "  note: " << note << "\n";
    for (const auto& w : result.warnings) {
      std::cout << "  WARNING: " << w << "\n";
      warnings.push_back(fmt::format("{}: {}", name, w));
    }
    if (result.status == ProbeStatus::skipped)
      std::cout << fmt::format("  skipped: {}\n", result.error);
    if (result.status == ProbeStatus::failed && interrupted_by == 0) {
      std::cout << fmt::format("  FAILED: {}\n", result.error);
      failed = true;
    }
    merge_probe_result(profile, name, result, out_dir);
    calibration::save_profile(profile, profile_path.string());
    if (interrupted_by != 0)
      break;
  }
  if (interrupted_by != 0)
    profile.notes.push_back(
        fmt::format("run interrupted by {}; the probes after it did not run", signal_name(interrupted_by)));
  if (failed)
    profile.notes.push_back("at least one probe failed (see the notes above); the profile is incomplete");
  const auto implausible = calibration::implausible_values(profile);
  if (!implausible.empty())
    std::cout << "\n== plausibility\n";
  for (const auto& w : implausible) {
    std::cout << "  WARNING: " << w << "\n";
    profile.notes.push_back("warning: implausible: " + w);
    warnings.push_back(w);
  }
  const bool refused = strict && !warnings.empty();
  if (refused)
    profile.notes.push_back(fmt::format("refused with --strict: {} measurement{} not to trust (the warnings "
                                        "above); the profile is incomplete",
                                        warnings.size(), warnings.size() == 1 ? "" : "s"));
  profile.complete = interrupted_by == 0 && !failed && !refused;
  calibration::save_profile(profile, profile_path.string());
  print_parameters(profile);
  std::cout << fmt::format("\nWrote {}{}\n", profile_path.string(), profile.complete ? "" : " (incomplete)");
  if (interrupted_by != 0)
    return 128 + interrupted_by;
  if (failed)
    return kExitProbeFailed;
  if (refused) {
    std::cout << fmt::format("Refused (--strict): {} warning{}\n", warnings.size(),
                             warnings.size() == 1 ? "" : "s");
    return kExitImplausible;
  }
  return kExitOk;
}

} // namespace dpusim::calib
