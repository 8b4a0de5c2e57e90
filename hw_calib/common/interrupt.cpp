#include "hw_calib/common/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <fmt/format.h>

namespace dpusim::calib {
namespace {

// The accepted exception to "no mutable globals": a signal handler can only communicate through an
// object with static storage duration, a lock-free atomic (safe in a handler since C++17) because
// serve's session threads read it while the handler or a test thread writes it.
std::atomic<int> g_stop_signal{0}; // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may only touch lock-free atomics");

extern "C" void on_stop_signal(int signal_number) {
  g_stop_signal = signal_number;
}

} // namespace

Interrupted::Interrupted(int signal_number)
    : std::runtime_error(fmt::format("interrupted by {}", signal_name(signal_number))),
      signal_(signal_number) {}

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0; // no SA_RESTART: blocking calls return EINTR and the caller checks the flag
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, nullptr);
}

bool stop_requested() {
  return g_stop_signal != 0;
}

int stop_signal() {
  return g_stop_signal.load();
}

void request_stop(int signal_number) {
  g_stop_signal = signal_number;
}

void clear_stop_request() {
  g_stop_signal = 0;
}

void throw_if_stop_requested() {
  if (stop_requested())
    throw Interrupted(stop_signal());
}

std::string signal_name(int signal_number) {
  switch (signal_number) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  default:
    return fmt::format("signal {}", signal_number);
  }
}

} // namespace dpusim::calib
