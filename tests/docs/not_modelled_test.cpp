// Every "not modelled" passage of the docs (docs/*.md, docs/models/*.md: a section headed "Not modelled",
// "What is not modelled" or "Not yet", or a paragraph saying "Not modelled") must be true: none may
// name a feature the scenario reader accepts. Each feature below is a key of the schema's generated
// table (docs/scenario-schema.md, checked against the registry elsewhere) with the phrases the docs use
// for it; a key that leaves the schema fails here too, so the table cannot rot.
#include "tests/support/golden_tables.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kSource = DPUSIM_SOURCE_DIR;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

/// The keys of the schema's generated table.
std::set<std::string> schema_keys() {
  std::set<std::string> keys;
  std::istringstream in(dpusim::testing::read_text(kSource / "docs/scenario-schema.md"));
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.find("<!-- keys:") != std::string::npos)
      inside = true;
    else if (line.find("<!-- end of keys") != std::string::npos)
      inside = false;
    else if (inside && line.rfind("| `", 0) == 0)
      keys.insert(line.substr(3, line.find('`', 3) - 3));
  }
  return keys;
}

struct Passage {
  std::string file;
  std::string text;
};

bool says_not_modelled(const std::string& text) {
  const auto t = lower(text);
  return t.find("not modelled") != std::string::npos || t.find("not yet") != std::string::npos;
}

/// The "not modelled" passages of one page: the body of a heading that says so, and each paragraph
/// that begins with or holds "Not modelled".
std::vector<Passage> passages(const fs::path& page) {
  std::vector<Passage> out;
  std::istringstream in(dpusim::testing::read_text(page));
  std::string line;
  std::string paragraph;
  bool section = false;
  std::string body;
  const auto flush = [&] {
    if (!paragraph.empty() && paragraph.find("Not modelled") != std::string::npos)
      out.push_back({page.filename().string(), paragraph});
    paragraph.clear();
  };
  while (std::getline(in, line)) {
    if (line.rfind("#", 0) == 0) {
      flush();
      if (section && !body.empty())
        out.push_back({page.filename().string(), body});
      body.clear();
      section = says_not_modelled(line);
      continue;
    }
    if (section)
      body += line + "\n";
    if (line.empty())
      flush();
    else
      paragraph += line + "\n";
  }
  flush();
  if (section && !body.empty())
    out.push_back({page.filename().string(), body});
  return out;
}

struct Feature {
  const char* key;
  std::vector<const char*> phrases; // as the docs name the feature, lower case
};

const std::vector<Feature>& features() {
  static const std::vector<Feature> f = {
      {"workload.parallelism.virtual_stages", {"interleaved pipeline"}},
      {"workload.zero", {"zero-2", "zero-3"}},
      {"workload.parallelism.cp", {"context parallelism"}},
      {"workload.parallelism.ep", {"expert parallelism", "mixture-of-experts layers"}},
      {"workload.data", {"data loading"}},
      {"workload.checkpoint", {"checkpoint writes", "writes of checkpoints", "and checkpoints"}},
      {"cluster.tenants", {"other tenants' traffic (planned)", "tenants (planned)"}},
      {"noise.network_tail", {"tcp latency tail"}},
      {"noise.gpu_jitter", {"gpu clock variation"}},
      {"noise.slow_gpus", {"thermal throttling"}},
      {"congestion", {"dcqcn/pfc dynamics", "roce congestion is not"}},
      {"workload.communication.qps_per_connection", {"multiple queue pairs per"}},
      {"workload.tp_comm_overlap", {"tp-comm-overlap`) is not modelled"}},
      {"faults.flapping_links", {"flapping links"}},
      {"cluster.storage", {"storage is not modelled"}},
  };
  return f;
}

} // namespace

TEST(DocsNotModelled, EveryFeatureOfTheTableIsAKeyTheSchemaAccepts) {
  const auto keys = schema_keys();
  ASSERT_GT(keys.size(), 100u);
  for (const auto& f : features())
    EXPECT_TRUE(keys.count(f.key) == 1) << f.key << " is not in docs/scenario-schema.md's table";
}

TEST(DocsNotModelled, NoPassageNamesAFeatureTheSchemaAccepts) {
  std::vector<Passage> all;
  for (const auto& dir : {kSource / "docs", kSource / "docs/models"})
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".md") {
        auto p = passages(entry.path());
        all.insert(all.end(), p.begin(), p.end());
      }
  ASSERT_GE(all.size(), 6u) << "the docs' not-modelled passages were not found";
  for (const auto& p : all) {
    const auto text = lower(p.text);
    // A passage's line breaks are not the phrase's.
    std::string flat;
    for (char c : text)
      flat += c == '\n' ? ' ' : c;
    for (const auto& f : features())
      for (const auto* phrase : f.phrases)
        EXPECT_EQ(flat.find(phrase), std::string::npos)
            << p.file << " says \"" << phrase << "\" is not modelled, but " << f.key
            << " is a key the scenario reader accepts:\n"
            << p.text;
  }
}

TEST(DocsNotModelled, TheCheckFindsAStalePassage) {
  // The check itself: a page like workload.md's stale list is caught.
  const fs::path dir = fs::temp_directory_path() / "dpusim-not-modelled-test";
  fs::create_directories(dir);
  const auto page = dir / "page.md";
  {
    std::ofstream(page)
        << "# A model\n\ntext\n\n**Not modelled (yet):** interleaved pipeline schedules,\nZeRO-2/3 and "
           "data loading.\n\n## Not modelled yet\n\nOther tenants' traffic (planned).\n";
  }
  const auto found = passages(page);
  fs::remove_all(dir);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NE(lower(found[0].text).find("interleaved pipeline"), std::string::npos);
  EXPECT_NE(lower(found[1].text).find("tenants' traffic (planned)"), std::string::npos);
}
