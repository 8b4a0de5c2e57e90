// Output files appear whole or not at all: content goes to a temporary file in the same directory,
// which is renamed over the target only once everything was written and flushed.
//
// Temporaries are named `.<name>.dpusim-tmp-<host>-<pid>-XXXXXX`: the host and the process that made
// them. A kill between write and rename leaves one behind; every later write into that directory
// removes those whose process is gone (see remove_stale_temporaries), never one that may still be in use.
//
// Several files that belong together (comparison.csv and attribution.csv, run.csv and the sample files)
// go through an OutputSet: every file is written and flushed first, and only when all of them are
// complete are they published. A failure before that (a full disk, a file size limit, a kill) publishes
// none of them.
//  - Where the output directory does not exist yet, the files are written into a temporary directory
//    beside it, `.<dir>.dpusim-tmp-<host>-<pid>-XXXXXX`, which one rename(2) turns into the output
//    directory: readers see all of the set or no directory at all.
//  - Where it exists (it may hold other files: a trace, another command's outputs, the user's own), the
//    files are renamed into it one right after the other. A reader, or a kill, between two of those
//    renames (microseconds apart) can see a new file beside an old one; nothing is ever half written.
//    Swapping a whole existing directory (renameat2's RENAME_EXCHANGE) would drop what another process
//    writes there meanwhile, and move a directory under a shell that has it as its working directory.
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

/// Removes the temporaries of dpusim's naming in `dir` (files, and an OutputSet's temporary directories
/// with what they hold; nothing below otherwise) made on this host by a process that is gone: its PID is
/// not running, or the process running under that PID started after the temporary was last written (the
/// PID was reused). Returns what it removed; never throws.
std::vector<std::filesystem::path> remove_stale_temporaries(const std::filesystem::path& dir);

/// A scratch directory of dpusim's naming in `parent` (e.g. the system's temporary directory) for files a
/// command reads back before publishing them; removed with what it holds when the object dies. One a
/// killed process left is removed by the next one made there (remove_stale_temporaries). Throws
/// std::runtime_error naming `parent` when it cannot be created.
class TemporaryDirectory {
public:
  TemporaryDirectory(const std::filesystem::path& parent, std::string_view name);
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory();
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
};

/// Files published together in one directory (see above).
class OutputSet {
public:
  /// What a set does where its directory does not exist: write into a temporary directory beside it
  /// and rename that (staged), or create the directory at once and rename the files into it (created:
  /// for a command that keeps other files there while it runs, such as dpusim plan's journal).
  enum class NewDirectory { staged, created };

  /// Creates `dir`'s parent if needed and `dir` or, where it does not exist and `new_directory` is
  /// staged, the temporary directory beside it; removes stale temporaries there; throws
  /// std::runtime_error.
  explicit OutputSet(std::filesystem::path dir, NewDirectory new_directory = NewDirectory::staged);
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  /// Removes the temporaries of a set that was not published.
  ~OutputSet();

  /// Writes `content` to a flushed temporary for `dir/name`; returns the final path.
  std::filesystem::path add(const std::string& name, std::string_view content);
  /// Publishes every file: the temporary directory renamed into `dir`, or each file renamed into place
  /// in the order added (where `dir` exists, or was created by someone else meanwhile); throws
  /// std::runtime_error, before replacing anything, when a target cannot be replaced (e.g. it is a
  /// directory).
  void publish();

private:
  struct Pending {
    std::filesystem::path temporary;
    std::filesystem::path target;
  };
  void publish_file_by_file();

  std::filesystem::path dir_;
  std::filesystem::path staging_; // the temporary directory where `dir_` did not exist; empty otherwise
  std::vector<Pending> pending_;
};

} // namespace dpusim
