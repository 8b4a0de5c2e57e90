#include "models/catalog/sources.hpp"

#include "models/base/yaml_reader.hpp"

namespace dpusim::catalog {

Sources Sources::load(const std::string& path) {
  Sources s;
  auto root = yaml::load_file(path).as_map();
  for (auto& [key, node] : root.items()) {
    auto m = node.as_map();
    Source src;
    src.title = m.required("title").as_string();
    if (auto u = m.optional("url"))
      src.url = u->as_string();
    src.status = m.required("status").as_choice({"V", "M", "S", "D"});
    m.finish();
    s.sources_.emplace(key, std::move(src));
  }
  return s;
}

const Source* Sources::find(const std::string& key) const {
  auto it = sources_.find(key);
  return it == sources_.end() ? nullptr : &it->second;
}

} // namespace dpusim::catalog
