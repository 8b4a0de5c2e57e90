// Runs external tools (perftest, fio, nccl-tests, nvidia-smi, ethtool) without a shell: fork + execv
// with an argument vector, stdin from /dev/null, stdout and stderr captured, a time limit, and the whole
// process group killed on timeout, on interruption and when the tool exits leaving children behind.
// A tool also dies when dpusim-calib does, even by SIGKILL: the kernel kills it when the thread that
// started it ends (PR_SET_PDEATHSIG), so start tools from a thread that outlives them.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct ProcessResult {
  bool started = false;     // false: the program could not be executed (see error)
  int exit_code = -1;       // valid when exited normally
  int term_signal = 0;      // the signal that ended it, 0 if it exited
  bool timed_out = false;   // killed because the time limit passed
  bool interrupted = false; // killed because a stop was requested (SIGINT/SIGTERM)
  bool output_truncated = false;
  std::string out;
  std::string err;
  std::string error; // why it could not start
  double wall_seconds = 0;

  [[nodiscard]] bool ok() const {
    return started && !timed_out && !interrupted && term_signal == 0 && exit_code == 0;
  }
  /// One line saying how it ended ("exit status 1", "killed after the 30 s time limit", ...).
  [[nodiscard]] std::string describe() const;
};

struct ProcessOptions {
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  std::size_t max_output_bytes = 64u << 20; // per stream; the rest is discarded
  /// Grace period between SIGTERM and SIGKILL to the process group.
  std::chrono::milliseconds kill_grace{std::chrono::milliseconds(500)};
};

/// Absolute path of an executable: names containing '/' are checked as given, others are searched in
/// $PATH. nullopt when not found or not executable.
std::optional<std::string> find_executable(std::string_view name);

/// Runs argv[0] (searched in $PATH; the path is resolved before fork) with the given arguments and waits for
/// it, at most options.timeout.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

/// A child running in the background (e.g. a perftest server) whose output is discarded. Its process
/// group is killed when stop() is called or the object is destroyed.
class BackgroundProcess {
public:
  BackgroundProcess() = default;
  explicit BackgroundProcess(const std::vector<std::string>& argv);
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;
  BackgroundProcess(BackgroundProcess&& other) noexcept;
  BackgroundProcess& operator=(BackgroundProcess&& other) noexcept;
  ~BackgroundProcess();

  [[nodiscard]] bool running() const { return pid_ > 0; }
  /// Waits up to `timeout` for it to exit by itself; returns its exit status, or nullopt if still running.
  std::optional<int> wait_for(std::chrono::milliseconds timeout);
  /// Kills the process group (SIGTERM, then SIGKILL) and reaps the child.
  void stop();

private:
  int pid_ = -1;
};

} // namespace dpusim::calib
