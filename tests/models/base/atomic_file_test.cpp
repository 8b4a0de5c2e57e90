// Output sets (models/base/atomic_file.hpp): a new output directory appears with the whole set or not at
// all; an existing one gets every file of the set, and none where the set was not published.
#include "models/base/atomic_file.hpp"
#include "tests/support/golden_tables.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

struct Scratch {
  fs::path path;
  Scratch() {
    std::string t = (fs::temp_directory_path() / "dpusim-atomic-XXXXXX").string();
    path = ::mkdtemp(t.data());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read(const fs::path& p) {
  return dpusim::testing::read_text(p);
}

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
    ++n;
  return n;
}

} // namespace

TEST(OutputSet, ANewDirectoryAppearsWithTheWholeSetAtOnce) {
  const Scratch s;
  const fs::path out = s.path / "results" / "run";
  dpusim::OutputSet set(out);
  set.add("a.csv", "a\n");
  set.add("b.csv", "b\n");
  // Written, not published: the output directory does not exist yet; only its temporary beside it.
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(entries(s.path / "results"), 1u);
  set.publish();
  EXPECT_EQ(read(out / "a.csv"), "a\n");
  EXPECT_EQ(read(out / "b.csv"), "b\n");
  EXPECT_EQ(entries(s.path / "results"), 1u) << "the temporary directory was left";
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0777 & ~mask) << "the directory has the mode a new directory gets";
}

TEST(OutputSet, ASetNotPublishedLeavesNoDirectoryAndNoTemporary) {
  const Scratch s;
  {
    dpusim::OutputSet set(s.path / "run");
    set.add("a.csv", "a\n");
  }
  EXPECT_EQ(entries(s.path), 0u);
}

TEST(OutputSet, AnExistingDirectoryKeepsWhatElseItHolds) {
  const Scratch s;
  const fs::path out = s.path / "run";
  fs::create_directories(out);
  std::ofstream(out / "trace.json") << "mine";
  std::ofstream(out / "a.csv") << "old";
  dpusim::OutputSet set(out);
  set.add("a.csv", "a\n");
  EXPECT_EQ(read(out / "a.csv"), "old");
  set.publish();
  EXPECT_EQ(read(out / "a.csv"), "a\n");
  EXPECT_EQ(read(out / "trace.json"), "mine");
  EXPECT_EQ(entries(out), 2u);
}

TEST(OutputSet, ADirectoryMadeMeanwhileGetsTheFilesOneByOne) {
  const Scratch s;
  const fs::path out = s.path / "run/";
  dpusim::OutputSet set(out);
  set.add("a.csv", "a\n");
  fs::create_directories(s.path / "run");
  std::ofstream(s.path / "run" / "other.csv") << "theirs";
  set.publish();
  EXPECT_EQ(read(s.path / "run" / "a.csv"), "a\n");
  EXPECT_EQ(read(s.path / "run" / "other.csv"), "theirs");
  EXPECT_EQ(entries(s.path), 1u) << "the temporary directory was left";
}

TEST(OutputSet, ATemporaryDirectoryOfAKilledRunIsRemovedByTheNext) {
  const Scratch s;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dpusim::OutputSet set(s.path / "run");
    set.add("a.csv", "partial");
    ::_exit(0); // as if killed before publishing: no destructor runs
  }
  ::waitpid(child, nullptr, 0);
  ASSERT_EQ(entries(s.path), 1u);
  dpusim::OutputSet next(s.path / "run");
  next.add("a.csv", "a\n");
  next.publish();
  EXPECT_EQ(entries(s.path), 1u) << "the killed run's temporary directory was left";
  EXPECT_EQ(read(s.path / "run" / "a.csv"), "a\n");
}

TEST(TemporaryDirectory, GoesWithWhatItHoldsAndOneAKilledProcessLeftGoesWithTheNext) {
  const Scratch s;
  {
    const dpusim::TemporaryDirectory t(s.path, "links");
    std::ofstream(t.path() / "a.csv") << "a";
    EXPECT_EQ(entries(s.path), 1u);
  }
  EXPECT_EQ(entries(s.path), 0u);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const dpusim::TemporaryDirectory t(s.path, "links");
    std::ofstream(t.path() / "a.csv") << "a";
    ::_exit(0); // as if killed: no destructor runs
  }
  ::waitpid(child, nullptr, 0);
  ASSERT_EQ(entries(s.path), 1u);
  const dpusim::TemporaryDirectory next(s.path, "links");
  EXPECT_EQ(entries(s.path), 1u) << "the killed process's directory was left";
}
