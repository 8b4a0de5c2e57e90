// A catalog value with where it comes from: source keys (see sources.yaml), an explicit assumption,
// or a calibration profile that replaced the catalog value.
#pragma once

#include <string>

namespace dpusim::catalog {

struct Citation {
  enum class Kind { source, assumption, calibration };
  Kind kind = Kind::source;
  std::string text; // "MLENG-ACC", "assumed: ...", or the profile path and provenance
  [[nodiscard]] std::string describe() const;
};

template <class T>
struct Cited {
  T value{};
  Citation cite;
};

} // namespace dpusim::catalog
