// Errors in how dpusim-calib was called (unknown command or option, bad value): exit status 2.
#pragma once

#include <stdexcept>

namespace dpusim::calib {

class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Exit statuses of dpusim-calib (also documented in --help and docs/calibration.md).
enum ExitStatus : int {
  kExitOk = 0,
  kExitProbeFailed = 1,
  kExitUsage = 2,
  kExitImplausible = 3, // --strict: a measurement outside its plausible range, or unstable
  // Interrupted by a signal: 128 + the signal number (130 for SIGINT, 143 for SIGTERM), as shells do.
};

} // namespace dpusim::calib
