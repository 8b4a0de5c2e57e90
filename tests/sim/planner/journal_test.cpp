// The plan journal keeps every whole entry of an interrupted run and drops a line cut short; points.csv
// cells survive the trip through CSV and the journal whatever they hold.
#include "models/base/input_error.hpp"
#include "sim/planner/journal.hpp"
#include "sim/planner/table.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace dpusim::planner;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::vector<std::string> kAwkward = {"7", "a, b", "say \"hi\"", "two\nlines", "back\\slash", ""};

} // namespace

TEST(PlanCsv, CellsRoundTrip) {
  const auto text = csv_line(kAwkward) + csv_line({"1", "2"});
  const auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], kAwkward);
  EXPECT_EQ(rows[1], (std::vector<std::string>{"1", "2"}));
  EXPECT_THROW((void)parse_csv("\"open"), std::runtime_error);
}

TEST(PlanJournal, KeepsWholeEntriesAndDropsACutOne) {
  dpusim::testing::TempDir tmp;
  const fs::path path = fs::path(tmp.path()) / "points.journal";
  {
    Journal j(path, 42, false);
    EXPECT_TRUE(j.kept().empty());
    j.append(3, kAwkward);
    j.append(5, {"5", "x"});
  }
  const std::string whole = read(path);
  // A kill in the middle of the third entry's write leaves part of a line.
  {
    std::ofstream out(path, std::ios::app | std::ios::binary);
    out << "9 0123456789abcdef 9,y";
  }
  {
    Journal j(path, 42, true);
    ASSERT_EQ(j.kept().size(), 2u);
    EXPECT_EQ(j.kept().at(3), kAwkward);
    EXPECT_EQ(j.kept().at(5), (std::vector<std::string>{"5", "x"}));
    EXPECT_EQ(read(path), whole) << "the cut line is removed before anything is appended";
    j.append(9, {"9", "y"});
  }
  Journal again(path, 42, true);
  EXPECT_EQ(again.kept().size(), 3u);
}

TEST(PlanJournal, AnEntryWithAWrongChecksumEndsWhatIsKept) {
  dpusim::testing::TempDir tmp;
  const fs::path path = fs::path(tmp.path()) / "points.journal";
  {
    Journal j(path, 1, false);
    j.append(0, {"0", "a"});
    j.append(1, {"1", "b"});
  }
  std::string text = read(path);
  text[text.rfind('b')] = 'c'; // the second entry's row, changed after its checksum was written
  {
    std::ofstream out(path, std::ios::trunc | std::ios::binary);
    out << text;
  }
  Journal j(path, 1, true);
  ASSERT_EQ(j.kept().size(), 1u);
  EXPECT_EQ(j.kept().count(0), 1u);
}

TEST(PlanJournal, AnotherPlansJournalIsRefusedOnResumeAndReplacedOtherwise) {
  dpusim::testing::TempDir tmp;
  const fs::path path = fs::path(tmp.path()) / "points.journal";
  {
    Journal j(path, 1, false);
    j.append(0, {"0", "a"});
  }
  EXPECT_THROW(Journal(path, 2, true), dpusim::InputError);
  {
    Journal fresh(path, 2, false);
    EXPECT_TRUE(fresh.kept().empty());
  }
  Journal j(path, 2, true);
  EXPECT_TRUE(j.kept().empty());
  j.remove();
  EXPECT_FALSE(fs::exists(path));
}
