// Runs a function in a child process and returns what it returned: one SimGrid engine per process, so a
// test that compares two simulations runs each in a child. The value crosses a pipe as bytes, so it
// must be trivially copyable; `failed` comes back where the child could not send it.
#pragma once

#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>
#include <utility>

namespace dpusim::testing {

template <typename F, typename T = std::invoke_result_t<F&>>
T in_child(F&& body, T failed = T{}) {
  static_assert(std::is_trivially_copyable_v<T>, "the value crosses a pipe as bytes");
  int fds[2];
  if (pipe(fds) != 0)
    return failed;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const T v = body();
    const auto written = write(fds[1], &v, sizeof v);
    close(fds[1]);
    _exit(written == static_cast<ssize_t>(sizeof v) ? 0 : 1);
  }
  close(fds[1]);
  T v = failed;
  if (read(fds[0], &v, sizeof v) != static_cast<ssize_t>(sizeof v))
    v = failed;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return v;
}

} // namespace dpusim::testing
