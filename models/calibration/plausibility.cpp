#include "models/calibration/plausibility.hpp"

#include "models/base/unit_parse.hpp"
#include "models/calibration/parameters.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <optional>

namespace dpusim::calibration {

namespace {

constexpr std::array kRanges{
    PlausibleRange{"os_noise_fraction", 0, 0.10,
                   "a dedicated core loses 0.5-1.5% of its time to the 1000 Hz clock tick; a tenth or more "
                   "means other work shared the probed cores: measure on an idle node",
                   "TSAFRIR05"},
    PlausibleRange{"os_noise_p99", 0, 750e-6,
                   "a detour as long as the Linux scheduler's minimum preemption granularity (0.75 ms, "
                   "times 1 + log2 of the CPUs) is another runnable thread's time slice on the probed core, "
                   "not the operating system's noise: measure on an idle node",
                   "LINUX-CFS-GRAN"},
};

std::string_view parameter_of(std::string_view key) {
  const auto dot = key.find('.');
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

std::string formatted(const ProfileParam& p, double value) {
  const auto* def = find_parameter(p.key);
  if (def == nullptr)
    return fmt::format("{:g}", value);
  if (def->kind == ParamKind::fraction)
    return fmt::format("{:.1f}%", 100 * value);
  return format_parameter_value(*def, value);
}

/// The fastest NIC port the discovery reported (machine "nic.<name>.speed"), bytes per second.
std::optional<double> fastest_port(const Profile& profile) {
  std::optional<double> out;
  for (const auto& [key, value] : profile.machine) {
    if (key.rfind("nic.", 0) != 0 || key.size() < 6 || key.compare(key.size() - 6, 6, ".speed") != 0)
      continue;
    try {
      const double rate = units::parse_quantity<units::DataRate>(value).si();
      out = std::max(out.value_or(0.0), rate);
    } catch (const std::exception&) {
      // A speed the discovery could not state is no bound.
    }
  }
  return out;
}

} // namespace

std::span<const PlausibleRange> plausible_ranges() {
  return kRanges;
}

std::vector<std::string> implausible_values(const Profile& profile) {
  std::vector<std::string> out;
  for (const auto& p : profile.parameters) {
    const auto name = parameter_of(p.key);
    for (const auto& r : kRanges)
      if (r.parameter == name && (p.value < r.low || p.value > r.high))
        out.push_back(
            fmt::format("{} = {} is outside its plausible range ({}): {} ({})", p.key, formatted(p, p.value),
                        r.low > 0 ? fmt::format("{} to {}", formatted(p, r.low), formatted(p, r.high))
                                  : fmt::format("at most {}", formatted(p, r.high)),
                        r.meaning, r.source));
  }
  // Rounding and the perftest's own units leave a little above the port; more is a broken measurement.
  if (const auto* rdma = profile.find("nic.rdma_bandwidth"))
    if (const auto port = fastest_port(profile); port && rdma->value > 1.05 * *port)
      out.push_back(fmt::format(
          "nic.rdma_bandwidth = {} is above the fastest NIC port the machine reported ({}): a NIC moves at "
          "most its line rate, so the measurement went elsewhere (loopback, or another device)",
          formatted(*rdma, rdma->value), formatted(*rdma, *port)));
  return out;
}

bool unstable_halves(double first, double second, double absolute) {
  const double low = std::min(first, second);
  const double high = std::max(first, second);
  return high > 2 * low && high - low > absolute;
}

} // namespace dpusim::calibration
