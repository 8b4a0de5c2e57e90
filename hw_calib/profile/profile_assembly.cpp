#include "hw_calib/profile/profile_assembly.hpp"

#include "hw_calib/discover/machine_summary.hpp"
#include "hw_calib/measurement/param_builder.hpp"
#include "models/base/atomic_file.hpp"

#include <chrono>
#include <ctime>
#include <fmt/format.h>

namespace dpusim::calib {

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void apply_discovery(calibration::Profile& profile, const MachineInfo& machine) {
  profile.role = machine.role;
  profile.machine = flatten_machine(machine);
  profile.tools["dpusim-calib"] = DPUSIM_VERSION;
  profile.tools["kernel"] = machine.kernel;
  for (const auto& [k, v] : machine.tools)
    profile.tools[k] = v;
  ProbeResult discovered;
  add_param(
      discovered, "discover",
      ParamSpec{role_key(machine.role, "cores"), static_cast<double>(std::max(1, machine.cpu.physical_cores)),
                calibration::Provenance::measured,
                "physical cores from the CPU topology in sysfs (/sys/devices/system/cpu/cpu*/topology)", "",
                std::nullopt,
                fmt::format("{} logical CPUs, {} socket(s)", machine.cpu.logical_cpus, machine.cpu.sockets)});
  if (machine.measured_core_clock_hz)
    add_param(discovered, "discover",
              ParamSpec{role_key(machine.role, "core_clock"), *machine.measured_core_clock_hz,
                        calibration::Provenance::measured,
                        "dependent integer-add chain on one core (one add per cycle), best of repetitions",
                        "", std::nullopt,
                        machine.cpu.max_frequency_hz ? fmt::format("cpufreq reports a maximum of {:.2f} GHz",
                                                                   *machine.cpu.max_frequency_hz / 1e9)
                                                     : std::string()});
  for (auto& p : discovered.params)
    profile.set(std::move(p));
  for (const auto& n : discovered.notes)
    profile.notes.push_back("discover: " + n);
}

calibration::Profile base_profile(const MachineInfo& machine) {
  calibration::Profile profile;
  profile.created = utc_timestamp();
  apply_discovery(profile, machine);
  for (const auto& n : machine.notes)
    profile.notes.push_back("discover: " + n);
  return profile;
}

void merge_probe_result(calibration::Profile& profile, const std::string& probe, const ProbeResult& result,
                        const std::filesystem::path& out_dir) {
  for (const auto& p : result.params)
    profile.set(p);
  for (const auto& [k, v] : result.tools)
    profile.tools[k] = v;
  for (const auto& n : result.notes)
    profile.notes.push_back(fmt::format("{}: {}", probe, n));
  for (const auto& w : result.warnings)
    profile.notes.push_back(fmt::format("warning: {}: {}", probe, w));
  if (result.status == ProbeStatus::skipped)
    profile.notes.push_back(fmt::format("{}: skipped: {}", probe, result.error));
  if (result.status == ProbeStatus::failed)
    profile.notes.push_back(fmt::format("{}: failed: {}", probe, result.error));
  if (!result.samples.empty())
    write_file_atomically(out_dir / "raw" / fmt::format("{}.csv", probe), result.samples.to_csv());
}

} // namespace dpusim::calib
