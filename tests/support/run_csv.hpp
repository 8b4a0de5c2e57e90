// Runs `dpusim run` on a scenario's text and reads one column of the run.csv it writes: for tests that
// compare whole simulations (each needs a process of its own).
#pragma once

#include "tests/support/subprocess.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace dpusim::testing {

/// The value of `column` in the run.csv of `dpusim run` on `text` (with `extra_args`); `stdout_out`,
/// when given, receives what the run printed.
inline double simulate(const TempDir& tmp, const std::string& name, const std::string& text,
                       const std::string& column, std::string* stdout_out = nullptr,
                       const std::vector<std::string>& extra_args = {}) {
  const std::string file = tmp.path() + "/" + name + ".yaml";
  std::ofstream(file) << text;
  std::vector<std::string> args{DPUSIM_BINARY, "run", file, "--out", tmp.path() + "/" + name};
  if (stdout_out == nullptr)
    args.emplace_back("--quiet");
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  const auto r = run_command(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (stdout_out != nullptr)
    *stdout_out = r.out;
  std::ifstream in(tmp.path() + "/" + name + "/run.csv");
  std::string header;
  std::string row;
  std::getline(in, header);
  std::getline(in, row);
  std::stringstream hs(header);
  std::stringstream rs(row);
  std::string h;
  std::string v;
  while (std::getline(hs, h, ',') && std::getline(rs, v, ','))
    if (h == column)
      return std::stod(v);
  ADD_FAILURE() << "no column " << column << " in " << header;
  return 0;
}

/// Writes `text` as NAME.yaml in `tmp` and runs `dpusim COMMAND` on it into NAME/ (expecting success).
inline CommandResult run_text(const TempDir& tmp, const std::string& command, const std::string& name,
                              const std::string& text) {
  const std::string file = tmp.path() + "/" + name + ".yaml";
  std::ofstream(file) << text;
  auto r = run_command({DPUSIM_BINARY, command, file, "--out", tmp.path() + "/" + name});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r;
}

/// `dpusim compare` on the bundled scenarios/examples/STEM.yaml into tmp/out (expecting success).
inline CommandResult compare_bundled(const TempDir& tmp, const std::string& stem) {
  auto r = run_command({DPUSIM_BINARY, "compare",
                        std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/" + stem + ".yaml", "--out",
                        tmp.path() + "/out"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r;
}

/// Each match of `note` in `text` by its first group (a variant's name): the other groups, as text.
inline std::map<std::string, std::vector<std::string>> by_variant(const std::string& text,
                                                                  const std::regex& note) {
  std::map<std::string, std::vector<std::string>> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), note); it != std::sregex_iterator(); ++it) {
    auto& groups = out[(*it)[1]];
    groups.clear();
    for (std::size_t g = 2; g < it->size(); ++g)
      groups.push_back((*it)[g].str());
  }
  return out;
}

/// `text` with its first `from` replaced by `to` (a test failure when it has none).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

/// Writes `text` as NAME.yaml and runs `dpusim run --samples N` on it into NAME/: the mean of
/// samples.csv's `column` over the samples.
inline double mean_of_samples(const TempDir& tmp, const std::string& name, const std::string& text,
                              int samples, const std::string& column) {
  const std::string file = tmp.path() + "/" + name + ".yaml";
  std::ofstream(file) << text;
  const auto r = run_command({DPUSIM_BINARY, "run", file, "--samples", std::to_string(samples), "--out",
                              tmp.path() + "/" + name, "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(tmp.path() + "/" + name + "/samples.csv");
  std::string header;
  std::getline(in, header);
  int index = -1;
  {
    std::stringstream hs(header);
    std::string h;
    for (int i = 0; std::getline(hs, h, ','); ++i)
      if (h == column)
        index = i;
  }
  EXPECT_GE(index, 0) << "no column " << column << " in " << header;
  double sum = 0;
  int count = 0;
  std::string line;
  while (std::getline(in, line)) {
    std::stringstream ls(line);
    std::string v;
    for (int i = 0; std::getline(ls, v, ','); ++i)
      if (i == index)
        sum += std::stod(v);
    ++count;
  }
  EXPECT_EQ(count, samples);
  return count > 0 ? sum / count : 0;
}

} // namespace dpusim::testing
