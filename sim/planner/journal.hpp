// The journal of a plan in progress: one line per simulated point, appended and synced to disk as the
// point finishes, so that a plan killed at any moment and run again with --resume simulates only what
// the journal lacks. The first line names the plan (a fingerprint of every point's scenario, the
// plan's objectives and the shard); each entry carries a checksum, so that a line cut short by the
// kill is recognised and dropped (and the file cut back to the last whole line).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace dpusim::planner {

/// FNV-1a, 64 bits: the fingerprint and the line checksums (stable across builds and machines).
std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 0xcbf29ce484222325ULL);

class Journal {
public:
  /// Opens `path` for a plan of `fingerprint`. With `resume`, keeps the entries of a journal of the
  /// same plan (InputError when it is another plan's); without, starts it afresh. Throws
  /// std::runtime_error when the file cannot be written.
  Journal(std::filesystem::path path, std::uint64_t fingerprint, bool resume);
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  ~Journal();

  /// The rows kept from an earlier run, by point.
  [[nodiscard]] const std::map<std::size_t, std::vector<std::string>>& kept() const { return kept_; }
  /// Appends a point's row and syncs it to disk; throws std::runtime_error.
  void append(std::size_t point, const std::vector<std::string>& row);
  /// Closes and deletes the journal (once the outputs are published).
  void remove();

private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::map<std::size_t, std::vector<std::string>> kept_;
};

} // namespace dpusim::planner
