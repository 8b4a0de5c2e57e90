// storage: sequential (1 MiB) and random (4 KiB) read throughput with O_DIRECT, and the CPU time one
// core spends per byte read. By default the probe creates its own temporary file (in --storage-dir,
// default /var/tmp), fills it, reads it and deletes it, also when interrupted; it writes nowhere else.
// After a SIGKILL the file stays until the next run, which removes it (it is named after its process);
// fio runs as one process (--thread) that the kernel kills with dpusim-calib.
// --storage-file reads an existing file or block device instead, read-only. With fio installed (and
// --storage-tool auto|fio) fio does the reads and its JSON output is parsed.
#pragma once

#include "hw_calib/probes/probe.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace dpusim::calib {

ProbeResult run_storage_probe(const ProbeContext& ctx);

/// The largest --storage-size: filling 64 GiB takes about a minute on a fast NVMe drive.
inline constexpr double kMaxStorageSizeBytes = 64.0 * 1024 * 1024 * 1024;
/// Free space left beside the file: a tenth of its size, at least 64 MiB.
inline constexpr double kStorageMarginFraction = 0.1;
inline constexpr double kMinStorageMarginBytes = 64.0 * 1024 * 1024;

/// Where the probe creates its file (--storage-dir, default /var/tmp).
std::filesystem::path storage_directory(const ProbeSettings& settings);
/// Why a temporary file of `size_bytes` must not be created with `available_bytes` free in `where`, if
/// it must not.
std::optional<std::string> storage_size_problem(double size_bytes, double available_bytes,
                                                const std::string& where = "the storage directory");
/// The same against the free space of `dir` for this user (statvfs f_bavail).
std::optional<std::string> storage_space_problem(double size_bytes, const std::filesystem::path& dir);

} // namespace dpusim::calib
