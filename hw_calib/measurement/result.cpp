#include "hw_calib/measurement/result.hpp"

#include <utility>

namespace dpusim::calib {

std::string_view probe_status_name(ProbeStatus status) {
  switch (status) {
  case ProbeStatus::ok:
    return "ok";
  case ProbeStatus::skipped:
    return "skipped";
  case ProbeStatus::failed:
    return "failed";
  }
  return "failed";
}

ProbeResult skipped(std::string why) {
  ProbeResult r;
  r.status = ProbeStatus::skipped;
  r.error = std::move(why);
  return r;
}

} // namespace dpusim::calib
