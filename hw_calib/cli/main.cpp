// dpusim-calib: measures a host or a BlueField's Arm side and writes a calibration profile for dpusim.
#include "hw_calib/cli/commands.hpp"
#include "hw_calib/cli/usage_error.hpp"
#include "hw_calib/common/bounded_input.hpp"
#include "models/base/input_error.hpp"
#include "models/base/text_distance.hpp"

#include <fmt/format.h>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage =
    "usage: dpusim-calib <command> [options]\n"
    "\n"
    "Calibration harness of dpusim: measures a host (or a BlueField DPU's Arm side) and writes a profile.\n"
    "\n"
    "commands:\n"
    "  discover   report CPU, NUMA, NICs, RDMA devices, PCIe links, inline crypto, GPUs, BlueField "
    "side/mode\n"
    "  run        run probes (tcp, rdma, crypto, storage, os-noise, memory, gpu, nccl) and write\n"
    "             DIR/profile.yaml and DIR/raw/<probe>.csv\n"
    "  ingest     read recorded outputs of nccl-tests, perftest, fio, iperf3, openssl speed, lscpu, ...\n"
    "             (format recognised from the content) and write DIR/profile.yaml as `run` would\n"
    "  serve      be the peer of two-node probes (`run --peer HOST` on the other node)\n"
    "  parameters list the calibratable parameters, the probe that measures each and the model using it\n"
    "\n"
    "options:\n"
    "  -h, --help     show this help; `dpusim-calib <command> --help` for a command's options\n"
    "  --version      print the version\n"
    "\n"
    "exit status: 0 ok, 1 a probe failed at run time, 2 usage or input error (an option, or a file that is\n"
    "unreadable, not recognised, malformed or incomplete), 128+N interrupted by signal N\n";

} // namespace

int main(int argc, char** argv) {
  using namespace dpusim::calib;
  const std::vector<std::string> all(argv + 1, argv + argc);
  try {
    if (all.empty()) {
      std::cerr << kUsage;
      return kExitUsage;
    }
    const std::string& cmd = all.front();
    const std::vector<std::string> rest(all.begin() + 1, all.end());
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      std::cout << kUsage;
      return kExitOk;
    }
    if (cmd == "--version" || cmd == "-V") {
      std::cout << "dpusim-calib " << DPUSIM_VERSION << "\n";
      return kExitOk;
    }
    if (cmd == "discover")
      return discover_command(rest);
    if (cmd == "run")
      return run_command(rest, argv[0]);
    if (cmd == "serve")
      return serve_command(rest);
    if (cmd == "parameters")
      return parameters_command(rest);
    if (cmd == "ingest")
      return ingest_command(rest);
    const std::vector<std::string> commands{"discover", "run", "ingest", "serve", "parameters"};
    const std::string hint = dpusim::did_you_mean(cmd, commands);
    throw UsageError(fmt::format(
        "unknown command \"{}\"{}; valid commands: discover, run, ingest, serve, parameters (see --help)",
        cmd, hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint)));
  } catch (const UsageError& e) {
    std::cerr << "dpusim-calib: " << e.what() << "\n";
    return kExitUsage;
  } catch (const InputFileError& e) {
    std::cerr << "dpusim-calib: " << e.what() << "\n";
    return kExitUsage;
  } catch (const dpusim::InputError& e) {
    std::cerr << "dpusim-calib: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "dpusim-calib: " << e.what() << "\n";
    return kExitProbeFailed;
  }
}
