// Output files appear whole or not at all: content goes to a temporary file in the same directory,
// which is renamed over the target only once everything was written and flushed.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace dpusim {

/// Writes `content` to `path` atomically, creating parent directories; throws std::runtime_error.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

} // namespace dpusim
