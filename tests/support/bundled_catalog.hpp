// The catalog shipped in models/catalog/data, loaded once per test process.
#pragma once

#include "models/catalog/catalog.hpp"

#include <filesystem>

namespace dpusim::testing {

inline const catalog::Catalog& bundled_catalog() {
  static const auto c =
      catalog::Catalog::load(std::filesystem::path(DPUSIM_SOURCE_DIR) / "models/catalog/data");
  return c;
}

} // namespace dpusim::testing
