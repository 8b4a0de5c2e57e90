#include "hw_calib/common/process_runner.hpp"

#include "hw_calib/common/interrupt.hpp"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace dpusim::calib {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  int read_end = -1;
  int write_end = -1;
  ~Pipe() {
    if (read_end >= 0)
      ::close(read_end);
    if (write_end >= 0)
      ::close(write_end);
  }
};

bool make_pipe(Pipe& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return false;
  p.read_end = fds[0];
  p.write_end = fds[1];
  return true;
}

// The argument vector as execvp wants it, built before fork (nothing may allocate in the child).
std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  out.reserve(argv.size() + 1);
  for (const auto& a : argv)
    out.push_back(const_cast<char*>(a.c_str())); // execvp's signature; the strings are not modified
  out.push_back(nullptr);
  return out;
}

// In the child: dies with the thread that started it (PR_SET_PDEATHSIG, kept across exec; the parent
// may have died before the call, hence the check), own process group, stdin from /dev/null,
// stdout/stderr to the given descriptors. Only async-signal-safe calls here: the parent may have other
// threads.
[[noreturn]] void exec_child(pid_t parent, const char* path, char* const* args, int out_fd, int err_fd,
                             int status_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent)
    ::_exit(127);
  ::setpgid(0, 0);
  // Restore default dispositions: the parent ignores SIGPIPE and handles SIGINT/SIGTERM.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGPIPE, &dfl, nullptr);
  ::sigaction(SIGINT, &dfl, nullptr);
  ::sigaction(SIGTERM, &dfl, nullptr);
  const int devnull = ::open("/dev/null", O_RDWR);
  if (devnull >= 0)
    ::dup2(devnull, STDIN_FILENO);
  ::dup2(out_fd >= 0 ? out_fd : devnull, STDOUT_FILENO);
  ::dup2(err_fd >= 0 ? err_fd : devnull, STDERR_FILENO);
  ::execv(path, args);
  const int e = errno;
  if (status_fd >= 0) {
    [[maybe_unused]] const auto n = ::write(status_fd, &e, sizeof e);
  }
  ::_exit(127);
}

void kill_group(int pid, std::chrono::milliseconds grace) {
  if (pid <= 0)
    return;
  ::kill(-pid, SIGTERM);
  ::kill(pid, SIGTERM);
  const auto deadline = Clock::now() + grace;
  int status = 0;
  while (Clock::now() < deadline) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) {
      ::kill(-pid, SIGKILL); // grandchildren left in the group
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

} // namespace

std::string ProcessResult::describe() const {
  if (!started)
    return fmt::format("could not be started: {}", error);
  if (interrupted)
    return "stopped because the run was interrupted";
  if (timed_out)
    return fmt::format("killed after its time limit ({:.0f} s)", wall_seconds);
  if (term_signal != 0)
    return fmt::format("killed by signal {}", term_signal);
  return fmt::format("exit status {}", exit_code);
}

std::optional<std::string> find_executable(std::string_view name) {
  if (name.empty())
    return std::nullopt;
  auto usable = [](const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string_view::npos) {
    std::string p(name);
    return usable(p) ? std::optional<std::string>(p) : std::nullopt;
  }
  const char* path_env = std::getenv("PATH");
  const std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto colon = path.find(':', start);
    std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (dir.empty())
      dir = ".";
    std::string candidate = dir + "/" + std::string(name);
    if (usable(candidate))
      return candidate;
    if (colon == std::string::npos)
      break;
    start = colon + 1;
  }
  return std::nullopt;
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult result;
  if (argv.empty()) {
    result.error = "empty command";
    return result;
  }
  Pipe out, err, status;
  if (!make_pipe(out) || !make_pipe(err) || !make_pipe(status)) {
    result.error = fmt::format("pipe: {}", std::strerror(errno));
    return result;
  }
  const auto path = find_executable(argv[0]);
  if (!path) {
    result.error = fmt::format("{}: not found in PATH or not executable", argv[0]);
    return result;
  }
  auto args = c_argv(argv);
  const auto start = Clock::now();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.error = fmt::format("fork: {}", std::strerror(errno));
    return result;
  }
  if (pid == 0)
    exec_child(parent, path->c_str(), args.data(), out.write_end, err.write_end, status.write_end);
  ::setpgid(pid, pid); // also in the parent, so that the group exists before we might kill it
  ::close(out.write_end);
  out.write_end = -1;
  ::close(err.write_end);
  err.write_end = -1;
  ::close(status.write_end);
  status.write_end = -1;

  // Did exec succeed? The status pipe closes on exec (O_CLOEXEC) or carries errno.
  int exec_errno = 0;
  ssize_t n = 0;
  while ((n = ::read(status.read_end, &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    int st = 0;
    ::waitpid(pid, &st, 0);
    result.error = fmt::format("{}: {}", argv[0], std::strerror(exec_errno));
    return result;
  }
  result.started = true;

  const auto deadline = start + options.timeout;
  std::array<pollfd, 2> fds{pollfd{out.read_end, POLLIN, 0}, pollfd{err.read_end, POLLIN, 0}};
  std::array<std::string*, 2> sinks{&result.out, &result.err};
  std::array<char, 65536> buf{};
  bool exited = false;
  int wait_status = 0;
  while (true) {
    if (stop_requested()) {
      result.interrupted = true;
      break;
    }
    if (Clock::now() >= deadline) {
      result.timed_out = true;
      break;
    }
    const bool any_open = fds[0].fd >= 0 || fds[1].fd >= 0;
    if (!any_open) {
      // Output closed; wait for the exit itself (bounded by the deadline).
      const pid_t r = ::waitpid(pid, &wait_status, WNOHANG);
      if (r == pid) {
        exited = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    const int ready = ::poll(fds.data(), fds.size(), 100);
    if (ready < 0 && errno != EINTR)
      break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
        continue;
      const ssize_t got = ::read(fds[i].fd, buf.data(), buf.size());
      if (got > 0) {
        std::string& sink = *sinks[i];
        const std::size_t room =
            options.max_output_bytes > sink.size() ? options.max_output_bytes - sink.size() : 0;
        const auto take = std::min<std::size_t>(room, static_cast<std::size_t>(got));
        sink.append(buf.data(), take);
        if (take < static_cast<std::size_t>(got))
          result.output_truncated = true;
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        fds[i].fd = -1; // closed (the descriptor itself is closed by Pipe)
      }
    }
    // A tool that exits while a grandchild keeps its stdout open must not hang us: check for exit.
    if (!exited) {
      const pid_t r = ::waitpid(pid, &wait_status, WNOHANG);
      if (r == pid) {
        exited = true;
        // Drain what is already buffered, then stop reading.
        for (auto& f : fds) {
          if (f.fd < 0)
            continue;
          ::fcntl(f.fd, F_SETFL, O_NONBLOCK);
        }
        for (std::size_t i = 0; i < fds.size(); ++i) {
          while (fds[i].fd >= 0) {
            const ssize_t got = ::read(fds[i].fd, buf.data(), buf.size());
            if (got <= 0)
              break;
            std::string& sink = *sinks[i];
            const std::size_t room =
                options.max_output_bytes > sink.size() ? options.max_output_bytes - sink.size() : 0;
            sink.append(buf.data(), std::min<std::size_t>(room, static_cast<std::size_t>(got)));
          }
        }
        break;
      }
    }
  }
  if (exited) {
    ::kill(-pid, SIGKILL); // anything the tool left running in its group
  } else {
    kill_group(pid, options.kill_grace);
    wait_status = 0;
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (exited) {
    if (WIFEXITED(wait_status))
      result.exit_code = WEXITSTATUS(wait_status);
    else if (WIFSIGNALED(wait_status))
      result.term_signal = WTERMSIG(wait_status);
  }
  return result;
}

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv) {
  if (argv.empty())
    return;
  const auto path = find_executable(argv[0]);
  if (!path)
    return;
  auto args = c_argv(argv);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0)
    return;
  if (pid == 0)
    exec_child(parent, path->c_str(), args.data(), -1, -1, -1);
  ::setpgid(pid, pid);
  pid_ = pid;
}

BackgroundProcess::BackgroundProcess(BackgroundProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)) {}

BackgroundProcess& BackgroundProcess::operator=(BackgroundProcess&& other) noexcept {
  if (this != &other) {
    stop();
    pid_ = std::exchange(other.pid_, -1);
  }
  return *this;
}

BackgroundProcess::~BackgroundProcess() {
  stop();
}

std::optional<int> BackgroundProcess::wait_for(std::chrono::milliseconds timeout) {
  if (pid_ <= 0)
    return std::nullopt;
  const auto deadline = Clock::now() + timeout;
  while (true) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      ::kill(-pid_, SIGKILL);
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (Clock::now() >= deadline || stop_requested())
      return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void BackgroundProcess::stop() {
  if (pid_ <= 0)
    return;
  kill_group(pid_, std::chrono::milliseconds(500));
  pid_ = -1;
}

} // namespace dpusim::calib
