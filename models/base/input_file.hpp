// Reading an input file (a scenario, catalog entry, profile or GEMM table) whole, bounded: anything that
// is not a regular file of at most kMaxFileBytes (a directory, a device such as /dev/zero, a pipe, a
// file of many megabytes) is refused before it is read.
#pragma once

#include <cstdint>
#include <string>

namespace dpusim {

inline constexpr std::uintmax_t kMaxFileBytes = 16u << 20;

/// The file's text; InputError (at the file) when it cannot be read or is not a small regular file.
/// `what` names what is expected in messages ("a YAML file", "a GEMM table").
std::string read_input_file(const std::string& path, const std::string& what);

} // namespace dpusim
