#include "sim/cli/process_pool.hpp"

#include "models/core/input_error.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace dpusim::cli {
namespace {

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
  std::vector<Running> running;
  std::size_t next = 0;
  parallel = std::max(1, parallel);
  while (next < count || !running.empty()) {
    while (next < count && static_cast<int>(running.size()) < parallel) {
      int fds[2];
      if (::pipe(fds) != 0)
        throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
      const pid_t pid = ::fork();
      if (pid < 0)
        throw std::runtime_error(std::string("cannot start a simulation process: ") + std::strerror(errno));
      if (pid == 0) {
        ::close(fds[0]);
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
    if (::poll(pfds.data(), pfds.size(), -1) < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll failed: ") + std::strerror(errno));
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
  return results;
}

} // namespace dpusim::cli
