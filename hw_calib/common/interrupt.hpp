// Interruption by SIGINT/SIGTERM. The signal handler only records the signal number in
// a lock-free `std::atomic<int>` (the one piece of mutable global state in dpusim-calib: a signal handler
// can reach nothing else). Probes poll stop_requested() in their loops, child processes are killed by
// the process runner, and `run` writes the partial profile marked incomplete.
#pragma once

#include <stdexcept>
#include <string>

namespace dpusim::calib {

/// Thrown by probes when a stop was requested; unwinding runs the cleanups (temporary files, threads).
class Interrupted : public std::runtime_error {
public:
  explicit Interrupted(int signal_number);
  [[nodiscard]] int signal_number() const { return signal_; }

private:
  int signal_;
};

/// Installs the SIGINT and SIGTERM handlers (without SA_RESTART, so blocking calls return EINTR) and
/// ignores SIGPIPE (a peer that goes away is an error to report, not a reason to die).
void install_interrupt_handlers();
[[nodiscard]] bool stop_requested();
/// The signal that requested the stop, 0 if none.
[[nodiscard]] int stop_signal();
/// Requests a stop as if `signal_number` had arrived (used by tests and by the handler).
void request_stop(int signal_number);
/// Forgets a requested stop (tests only: a real run ends after an interruption).
void clear_stop_request();
void throw_if_stop_requested();
/// "SIGINT", "SIGTERM" or "signal N".
std::string signal_name(int signal_number);

} // namespace dpusim::calib
