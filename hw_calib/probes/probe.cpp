#include "hw_calib/probes/probe.hpp"

#include "hw_calib/common/interrupt.hpp"

#include <fmt/format.h>

namespace dpusim::calib {

ProbeContext::ProbeContext(const ProbeSettings& settings, const MachineInfo& machine, std::string probe_name)
    : settings_(settings), machine_(machine), probe_(std::move(probe_name)),
      deadline_(std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(settings.time_limit_s))) {}

double ProbeContext::time_left_s() const {
  return std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
}

void ProbeContext::check() const {
  throw_if_stop_requested();
  if (time_left_s() <= 0)
    throw ProbeTimeout(
        fmt::format("probe {} exceeded its time limit of {:.0f} s", probe_, settings_.time_limit_s));
}

} // namespace dpusim::calib
