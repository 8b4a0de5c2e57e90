// Output files appear whole or not at all: content goes to a temporary file in the same directory,
// which is renamed over the target only once everything was written and flushed.
//
// Temporaries are named `.<name>.dpusim-tmp-<host>-<pid>-XXXXXX`: the host and the process that made
// them. A kill between write and rename leaves one behind; every later write into that directory
// removes those whose process is gone (see remove_stale_temporaries), never one that may still be in use.
//
// Several files that belong together (comparison.csv and attribution.csv, run.csv and the sample files)
// go through an OutputSet: every file is written to its temporary first, and only when all of them are
// complete are they renamed into place, one right after the other. A failure before that (a full disk,
// a file size limit, a kill) replaces none of them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim {

/// Writes `content` to `path` atomically, creating parent directories; throws std::runtime_error.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// A temporary file of dpusim's naming, created (mode 0600, close-on-exec) in `dir` for `name`.
struct Temporary {
  std::filesystem::path path;
  int fd = -1;
};
/// Throws std::runtime_error naming the directory when it cannot be created.
Temporary create_temporary(const std::filesystem::path& dir, std::string_view name);

/// Removes the temporaries of dpusim's naming in `dir` (not below) made on this host by a process that
/// is gone: its PID is not running, or the process running under that PID started after the temporary
/// was last written (the PID was reused). Returns what it removed; never throws.
std::vector<std::filesystem::path> remove_stale_temporaries(const std::filesystem::path& dir);

/// Files published together in one directory (see above).
class OutputSet {
public:
  /// Creates `dir` if needed and removes stale temporaries there; throws std::runtime_error.
  explicit OutputSet(std::filesystem::path dir);
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  /// Removes the temporaries of a set that was not published.
  ~OutputSet();

  /// Writes `content` to a flushed temporary for `dir/name`; returns the final path.
  std::filesystem::path add(const std::string& name, std::string_view content);
  /// Renames every file into place, in the order added; throws std::runtime_error, before replacing
  /// anything, when a target cannot be replaced (e.g. it is a directory).
  void publish();

private:
  struct Pending {
    std::filesystem::path temporary;
    std::filesystem::path target;
  };
  std::filesystem::path dir_;
  std::vector<Pending> pending_;
};

} // namespace dpusim
