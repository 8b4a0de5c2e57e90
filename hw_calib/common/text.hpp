// Small text helpers shared by the parsers and the discovery code: splitting tool output into lines and
// fields, strict number parsing, and reading small files from /proc and /sys.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

std::string_view trim(std::string_view s);
std::vector<std::string_view> split_lines(std::string_view text);
/// Splits on runs of spaces and tabs; empty fields are dropped.
std::vector<std::string_view> split_whitespace(std::string_view s);
/// Splits on a single character, keeping empty fields (CSV without quoting).
std::vector<std::string_view> split_on(std::string_view s, char sep);
bool starts_with(std::string_view s, std::string_view prefix);
/// A name made one part of a dotted key: its dots become underscores ("0000:3b:00.0" -> "0000:3b:00_0").
std::string key_part(std::string name);
std::string to_lower(std::string_view s);

/// The whole text must be a finite number (surrounding blanks allowed); otherwise nullopt.
std::optional<double> parse_number(std::string_view s);
std::optional<long long> parse_integer(std::string_view s, int base = 10);

/// Contents of a small file, or nullopt when it cannot be read (sysfs files often cannot).
std::optional<std::string> read_text_file(const std::filesystem::path& path);
/// First line of a file, trimmed.
std::optional<std::string> read_first_line(const std::filesystem::path& path);

} // namespace dpusim::calib
