// What the golden and bad-input tests share: the inputs of a folder, an input's `name:` and its
// `# expect:` lines, and a CSV compared with its reference cell by cell (numbers within a relative
// tolerance, every other cell exactly).
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace dpusim::testing {

/// The .yaml files of DPUSIM_SOURCE_DIR/`folder`, sorted.
inline std::vector<std::string> bundled_inputs(const std::string& folder) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(DPUSIM_SOURCE_DIR) / folder))
    if (e.path().extension() == ".yaml")
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

/// The messages a bad-input file expects: its `# expect: <message>` lines.
inline std::vector<std::string> expectations(const std::string& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  std::string line;
  const std::string tag = "# expect: ";
  while (std::getline(in, line))
    if (line.rfind(tag, 0) == 0)
      out.push_back(line.substr(tag.size()));
  return out;
}

/// The value of an input's top-level `name:` line.
inline std::string input_name(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("name: ", 0) == 0)
      return line.substr(6);
  return {};
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// CSV with RFC 4180 quotes (a reason may hold commas and quotes).
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted && ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
      cell += '"';
      ++i;
    } else if (ch == '"') {
      quoted = !quoted;
    } else if (!quoted && ch == ',') {
      rows.back().push_back(std::move(cell));
      cell.clear();
    } else if (!quoted && ch == '\n') {
      rows.back().push_back(std::move(cell));
      cell.clear();
      rows.emplace_back();
    } else {
      cell += ch;
    }
  }
  if (rows.back().empty())
    rows.pop_back();
  return rows;
}

/// The rows of a CSV file after its header, each by column name.
inline std::vector<std::map<std::string, std::string>> csv_rows(const std::filesystem::path& file) {
  const auto table = parse_csv(read_text(file));
  std::vector<std::map<std::string, std::string>> rows;
  for (std::size_t r = 1; r < table.size(); ++r) {
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < table[0].size() && c < table[r].size(); ++c)
      row[table[0][c]] = table[r][c];
    rows.push_back(std::move(row));
  }
  return rows;
}

inline bool is_number(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

/// Every cell of `got_file` against `want_file`: numbers within `tolerance` (relative), the rest exactly;
/// rows are named by their column `key` in the messages.
inline void expect_same_table(const std::filesystem::path& got_file, const std::filesystem::path& want_file,
                              std::size_t key = 0, double tolerance = 1e-6) {
  const auto got = parse_csv(read_text(got_file));
  const auto want = parse_csv(read_text(want_file));
  ASSERT_EQ(got.size(), want.size()) << got_file.filename();
  ASSERT_EQ(got.front(), want.front()) << "the CSV columns changed";
  for (std::size_t row = 1; row < want.size(); ++row) {
    ASSERT_EQ(got[row].size(), want[row].size()) << "row " << row;
    for (std::size_t col = 0; col < want[row].size(); ++col) {
      double a = 0;
      double b = 0;
      const std::string& column = want.front()[col];
      const std::string& name = want[row].at(std::min(key, want[row].size() - 1));
      if (is_number(want[row][col], b) && is_number(got[row][col], a))
        EXPECT_LE(std::abs(a - b), tolerance * std::max(std::abs(b), 1e-9))
            << column << " of " << name << ": got " << a << ", reference " << b;
      else
        EXPECT_EQ(got[row][col], want[row][col]) << column << " of " << name;
    }
  }
}

/// A test name from an input's file name: its stem with every other character than a letter or digit '_'.
inline std::string test_name_of(const std::string& file) {
  std::string name = std::filesystem::path(file).stem().string();
  for (auto& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

} // namespace dpusim::testing
