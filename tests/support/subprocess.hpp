// Runs a program (no shell) and captures its exit status and output, for tests of the command line.
#pragma once

#include <string>
#include <vector>

namespace dpusim::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  double seconds = 0;   // wall-clock, from start to exit
  long max_rss_kib = 0; // the child's peak resident memory (getrusage of the child, through wait4)
};

CommandResult run_command(const std::vector<std::string>& argv);

/// Starts a program (no shell) with its output discarded and returns its PID without waiting for it.
int spawn_quietly(const std::vector<std::string>& argv);

/// A fresh, empty directory under the system temporary directory, removed when the object dies.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }

private:
  std::string path_;
};

} // namespace dpusim::testing
