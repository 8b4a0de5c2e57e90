#include "hw_calib/cli/commands.hpp"
#include "hw_calib/cli/option_parsing.hpp"
#include "hw_calib/cli/usage_error.hpp"
#include "hw_calib/common/interrupt.hpp"
#include "hw_calib/discover/machine_discovery.hpp"
#include "hw_calib/discover/machine_summary.hpp"
#include "hw_calib/profile/profile_assembly.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>

namespace dpusim::calib {

namespace po = boost::program_options;

int discover_command(const std::vector<std::string>& args) {
  po::options_description opts(
      "dpusim-calib discover [options]\n\n"
      "Reports the CPU, NUMA layout, NICs, RDMA devices and link rates, PCIe links, "
      "inline-crypto features,\nGPUs, and whether this is a BlueField's Arm side or a host "
      "with a BlueField (and its mode).\n\nOptions");
  opts.add_options()("help,h", "show this help")(
      "out,o", po::value<std::string>(),
      "also write the result to DIR/profile.yaml (updating the machine part of an existing profile)")(
      "sysroot", po::value<std::string>(),
      "read /proc and /sys under this directory instead (recorded trees)")(
      "no-tools", "do not run ethtool, nvidia-smi or mlxconfig");
  const auto vm = parse_options("discover", opts, args);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kExitOk;
  }
  install_interrupt_handlers();
  if (vm.count("out") && vm["out"].as<std::string>().empty())
    throw UsageError(
        "discover: --out needs a directory; an empty one would write into the current directory");
  DiscoverOptions o;
  if (vm.count("sysroot")) {
    o.root = vm["sysroot"].as<std::string>();
    o.measure_clock = false; // the clock of this machine says nothing about a recorded tree
    if (!std::filesystem::is_directory(o.root))
      throw UsageError(fmt::format("--sysroot {}: not a directory", o.root.string()));
  }
  o.run_tools = vm.count("no-tools") == 0;
  const MachineInfo machine = discover_machine(o);
  std::cout << render_machine_summary(machine);
  if (vm.count("out")) {
    const std::filesystem::path path = std::filesystem::path(vm["out"].as<std::string>()) / "profile.yaml";
    calibration::Profile profile;
    if (std::filesystem::exists(path)) {
      profile = calibration::load_profile(path.string());
      apply_discovery(profile, machine);
    } else {
      profile = base_profile(machine);
    }
    calibration::save_profile(profile, path.string());
    std::cout << fmt::format("Wrote {}\n", path.string());
  }
  return kExitOk;
}

} // namespace dpusim::calib
