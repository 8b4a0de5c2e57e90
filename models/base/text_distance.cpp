#include "models/base/text_distance.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>

namespace dpusim {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the table (a transposition looks two rows back): memory in the shorter word only.
  if (a.size() < b.size())
    std::swap(a, b);
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::size_t> before(m + 1);
  std::vector<std::size_t> previous(m + 1);
  std::vector<std::size_t> row(m + 1);
  for (std::size_t j = 0; j <= m; ++j)
    previous[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[m];
}

namespace {
std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}
} // namespace

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  // A value pasted in whole (a line of many kilobytes) is no misspelling of a name: comparing it with
  // every candidate would only cost time.
  constexpr std::size_t kLongest = 256;
  if (word.size() > kLongest)
    return {};
  const std::string lw = lower(word);
  for (const auto& c : candidates) {
    if (lower(c) == lw)
      return c;
  }
  std::size_t best = std::numeric_limits<std::size_t>::max();
  std::string best_word;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(lw, lower(c));
    if (d < best) {
      best = d;
      best_word = c;
    }
  }
  const std::size_t allowed = std::max<std::size_t>(1, std::min(word.size(), best_word.size()) / 3);
  // A candidate that contains the word (or the reverse) is also a plausible intent: "h100" -> "h100-sxm".
  if (best > allowed) {
    for (const auto& c : candidates) {
      const std::string lc = lower(c);
      if (lw.size() >= 3 && (lc.find(lw) != std::string::npos || lw.find(lc) != std::string::npos))
        return c;
    }
    return {};
  }
  return best_word;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty())
      out += separator;
    out += item;
  }
  return out;
}

} // namespace dpusim
