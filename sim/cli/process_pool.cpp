#include "sim/cli/process_pool.hpp"

#include "models/base/input_error.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace dpusim::cli {
namespace {

constexpr std::array<int, 3> kForwarded{SIGINT, SIGTERM, SIGHUP};
constexpr auto kStopGrace = std::chrono::seconds(1);

// The write end of the pool's self-pipe, for the signal handler: the one piece of mutable global state
// here, because a signal handler can reach nothing else. -1 while no pool runs.
volatile std::sig_atomic_t g_signal_pipe = -1; // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

extern "C" void on_stop_signal(int signal_number) {
  const int saved = errno;
  const int fd = g_signal_pipe;
  if (fd >= 0) {
    const auto byte = static_cast<unsigned char>(signal_number);
    [[maybe_unused]] const ssize_t n = ::write(fd, &byte, 1);
  }
  errno = saved;
}

sigset_t forwarded_set() {
  sigset_t set;
  sigemptyset(&set);
  for (const int s : kForwarded)
    sigaddset(&set, s);
  return set;
}

// While the pool runs: the stop signals that were not ignored go to a self-pipe that the poll loop
// watches. Restores the previous dispositions when destroyed.
class StopSignals {
public:
  StopSignals() {
    if (::pipe2(pipe_.data(), O_CLOEXEC | O_NONBLOCK) != 0)
      throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
    g_signal_pipe = pipe_[1];
    for (std::size_t i = 0; i < kForwarded.size(); ++i) {
      ::sigaction(kForwarded[i], nullptr, &previous_[i]);
      if (previous_[i].sa_handler == SIG_IGN) // e.g. SIGINT of a background job, SIGHUP under nohup
        continue;
      struct sigaction action {};
      action.sa_handler = on_stop_signal;
      sigemptyset(&action.sa_mask);
      action.sa_flags = 0;
      ::sigaction(kForwarded[i], &action, nullptr);
      installed_[i] = true;
    }
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  ~StopSignals() {
    restore();
    close_pipe();
  }

  [[nodiscard]] int fd() const { return pipe_[0]; }

  /// The first signal received, if any (drains the pipe).
  std::optional<int> received() const {
    std::optional<int> first;
    unsigned char buf[16];
    ssize_t n = 0;
    while ((n = ::read(pipe_[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0 && !first)
        first = buf[0];
    return first;
  }

  /// Puts back the dispositions found at the start (a signal received before is still in the pipe).
  void restore() {
    for (std::size_t i = 0; i < kForwarded.size(); ++i)
      if (installed_[i]) {
        ::sigaction(kForwarded[i], &previous_[i], nullptr);
        installed_[i] = false;
      }
  }

  void close_pipe() {
    g_signal_pipe = -1;
    for (int& fd : pipe_)
      if (fd >= 0) {
        ::close(fd);
        fd = -1;
      }
  }

private:
  std::array<int, 2> pipe_{-1, -1};
  std::array<struct sigaction, kForwarded.size()> previous_{};
  std::array<bool, kForwarded.size()> installed_{};
};

// Blocks the stop signals for its lifetime, so that none is handled between fork and the child's
// resetting of its dispositions (pending ones are delivered when unblocked).
class BlockedSignals {
public:
  BlockedSignals() {
    const sigset_t set = forwarded_set();
    ::sigprocmask(SIG_BLOCK, &set, &previous_);
  }
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;
  ~BlockedSignals() { ::sigprocmask(SIG_SETMASK, &previous_, nullptr); }

private:
  sigset_t previous_{};
};

void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    done += static_cast<std::size_t>(n);
  }
}

struct Running {
  std::size_t job;
  pid_t pid;
  int fd;
  std::string output;
};

// Sends SIGTERM to every worker, waits for them (SIGKILL after the grace period) and reaps them. SIGTERM
// whatever stopped the parent: SimGrid answers a SIGINT with a status dump of every simulated activity.
void stop_workers(std::vector<Running>& running) {
  for (const auto& r : running)
    ::kill(r.pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kStopGrace;
  bool killed = false;
  while (!running.empty()) {
    for (auto it = running.begin(); it != running.end();) {
      int status = 0;
      const pid_t got = ::waitpid(it->pid, &status, killed ? 0 : WNOHANG);
      if (got == it->pid || (got < 0 && errno == ECHILD)) {
        ::close(it->fd);
        it = running.erase(it);
      } else {
        ++it;
      }
    }
    if (running.empty())
      break;
    if (std::chrono::steady_clock::now() >= deadline && !killed) {
      for (const auto& r : running)
        ::kill(r.pid, SIGKILL);
      killed = true;
      continue;
    }
    if (!killed)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Ends the process by `signal_number`'s default action, as the shell or scheduler that sent it expects.
[[noreturn]] void die_of(int signal_number, std::size_t workers) {
  const char* name = signal_number == SIGINT    ? "SIGINT"
                     : signal_number == SIGTERM ? "SIGTERM"
                     : signal_number == SIGHUP  ? "SIGHUP"
                                                : strsignal(signal_number);
  std::fprintf(stderr, "dpusim: stopped by %s; %zu running simulation process%s ended first\n", name, workers,
               workers == 1 ? "" : "es");
  std::fflush(nullptr);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
  std::_Exit(128 + signal_number); // not reached: the default action of the stop signals is to terminate
}

} // namespace

std::string JobOutcome::describe() const {
  if (!output.empty())
    return output;
  if (exit_code > 128)
    return "the simulation process was killed by signal " + std::to_string(exit_code - 128) + " (" +
           strsignal(exit_code - 128) + ")";
  return "the simulation process exited with status " + std::to_string(exit_code) + " without a message";
}

std::vector<JobOutcome> run_in_processes(std::size_t count, int parallel,
                                         const std::function<std::string(std::size_t)>& job,
                                         const std::function<void(std::size_t, const JobOutcome&)>& on_done) {
  std::vector<JobOutcome> results(count);
  if (count == 0)
    return results;
  std::vector<Running> running;
  std::size_t next = 0;
  parallel = std::max(1, parallel);
  StopSignals stop;
  const pid_t parent = ::getpid();
  std::optional<int> stopped_by;
  while ((next < count || !running.empty()) && !stopped_by) {
    while (next < count && static_cast<int>(running.size()) < parallel) {
      int fds[2];
      if (::pipe(fds) != 0)
        throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
      pid_t pid = 0;
      {
        const BlockedSignals blocked;
        pid = ::fork();
        if (pid == 0) {
          // Die with the parent; if it died between fork and prctl, the kernel will not tell us.
          ::prctl(PR_SET_PDEATHSIG, SIGKILL);
          if (::getppid() != parent)
            ::_exit(128 + SIGKILL);
          stop.restore();
          stop.close_pipe();
        }
      }
      if (pid < 0)
        throw std::runtime_error(std::string("cannot start a simulation process: ") + std::strerror(errno));
      if (pid == 0) {
        ::close(fds[0]);
        for (const auto& r : running)
          ::close(r.fd);
        int code = 0;
        std::string out;
        try {
          out = job(next);
        } catch (const InputError& e) {
          out = e.what();
          code = 2;
        } catch (const std::exception& e) {
          out = e.what();
          code = 1;
        }
        write_all(fds[1], out);
        ::close(fds[1]);
        std::fflush(nullptr);
        ::_exit(code);
      }
      ::close(fds[1]);
      running.push_back({next, pid, fds[0], {}});
      ++next;
    }
    std::vector<pollfd> pfds;
    for (const auto& r : running)
      pfds.push_back({r.fd, POLLIN, 0});
    pfds.push_back({stop.fd(), POLLIN, 0});
    if (::poll(pfds.data(), pfds.size(), -1) < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll failed: ") + std::strerror(errno));
    if ((stopped_by = stop.received()))
      break;
    for (std::size_t i = 0; i < running.size();) {
      auto& r = running[i];
      if ((pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
        ++i;
        continue;
      }
      char buf[65536];
      const ssize_t n = ::read(r.fd, buf, sizeof(buf));
      if (n > 0) {
        r.output.append(buf, static_cast<std::size_t>(n));
        ++i;
        continue;
      }
      if (n < 0 && errno == EINTR) {
        ++i;
        continue;
      }
      ::close(r.fd);
      int status = 0;
      while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
      }
      JobOutcome o;
      o.output = std::move(r.output);
      o.exit_code =
          WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
      if (on_done)
        on_done(r.job, o);
      results[r.job] = std::move(o);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
      pfds.erase(pfds.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  if (stopped_by) {
    const std::size_t workers = running.size();
    stop_workers(running); // a repeated signal meanwhile only lands in the pipe
    stop.restore();
    die_of(*stopped_by, workers);
  }
  // A signal that came after the last worker finished still stops the command before it writes anything.
  stop.restore();
  if (const auto late = stop.received())
    die_of(*late, 0);
  return results;
}

} // namespace dpusim::cli
