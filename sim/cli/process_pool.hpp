// Runs jobs in child processes (fork), a few at a time, and collects what each writes back. SimGrid's
// engine is a process-wide singleton, so every simulation gets a process of its own.
//
// Workers never outlive the command: each asks the kernel to kill it when its parent dies
// (PR_SET_PDEATHSIG, SIGKILL), and checks right after fork that the parent is still the one that forked
// it. While jobs run, SIGINT, SIGTERM and SIGHUP to the parent (unless they were ignored when the pool
// started) are forwarded to every running worker as SIGTERM (SimGrid answers SIGINT with a status dump);
// the parent reaps them all (SIGKILL after a second of grace), then dies of the signal it received, so
// that the caller sees 128+N.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace dpusim::cli {

struct JobOutcome {
  int exit_code = 0;  // the child's exit status; 128+N when killed by signal N
  std::string output; // what the job returned
  /// The job's message, or what became of it when it left none (e.g. "killed by signal 6").
  [[nodiscard]] std::string describe() const;
};

/// Calls `job(i)` in a child process for i in [0, count), at most `parallel` at once. The string a
/// job returns is handed back; an exception in a job becomes exit code 2 (InputError) or 1, with its
/// message as output. `on_done(i, outcome)` is called as each finishes. Results come back in job order.
/// A stop signal ends every worker and then the process itself (see above).
std::vector<JobOutcome>
run_in_processes(std::size_t count, int parallel, const std::function<std::string(std::size_t)>& job,
                 const std::function<void(std::size_t, const JobOutcome&)>& on_done = {});

} // namespace dpusim::cli
