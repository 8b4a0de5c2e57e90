// "Did you mean ...?" suggestions for misspelt keys, names and units.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim {

/// Optimal-string-alignment edit distance (insertions, deletions, substitutions, adjacent swaps).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The closest candidate if it is close enough to be a plausible typo (case-insensitive match first),
/// otherwise an empty string.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

/// "a, b, c" — for listing what is valid in an error message.
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

} // namespace dpusim
