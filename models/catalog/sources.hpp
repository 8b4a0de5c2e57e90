// The bibliography behind the catalog: every source key used by an entry must be listed here.
#pragma once

#include <map>
#include <string>

namespace dpusim::catalog {

struct Source {
  std::string title;
  std::string url;
  std::string status; // V vendor, M measurement, S secondary, D derived
};

class Sources {
public:
  static Sources load(const std::string& path);
  [[nodiscard]] const Source* find(const std::string& key) const;
  [[nodiscard]] const std::map<std::string, Source>& all() const { return sources_; }

private:
  std::map<std::string, Source> sources_;
};

} // namespace dpusim::catalog
