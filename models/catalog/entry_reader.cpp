#include "models/catalog/entry_reader.hpp"

#include "models/base/text_distance.hpp"

#include <fmt/format.h>
#include <sstream>

namespace dpusim::catalog {

EntryReader::EntryReader(yaml::Map map, const Sources& sources) : map_(std::move(map)), sources_(sources) {
  name_ = map_.required("name").as_string();
  description_ = map_.required("description").as_string();
  if (auto s = map_.optional("source")) {
    std::string note;
    default_citation_ = check_sources(*s, s->as_string(), note);
  }
}

Citation EntryReader::check_sources(const yaml::Node& where, const std::string& keys,
                                    const std::string& note) {
  std::vector<std::string> known;
  for (const auto& [k, v] : sources_.all())
    known.push_back(k);
  std::stringstream ss(keys);
  std::string key;
  while (std::getline(ss, key, ',')) {
    key.erase(0, key.find_first_not_of(' '));
    key.erase(key.find_last_not_of(' ') + 1);
    if (sources_.find(key) == nullptr) {
      const std::string hint = did_you_mean(key, known);
      where.fail(
          fmt::format("unknown source key \"{}\"{}; sources are listed in models/catalog/data/sources.yaml",
                      key, hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint)));
    }
  }
  return Citation{Citation::Kind::source, note.empty() ? keys : fmt::format("{} ({})", keys, note)};
}

std::pair<yaml::Node, Citation> EntryReader::value_and_citation(const yaml::Node& node) {
  if (node.is_map()) {
    auto m = node.as_map();
    yaml::Node value = m.required("value");
    auto source = m.optional("source");
    auto assumption = m.optional("assumption");
    std::string note;
    if (auto n = m.optional("note"))
      note = n->as_string();
    m.finish();
    if (source && assumption)
      node.fail("give either a source or an assumption, not both");
    if (source)
      return {value, check_sources(*source, source->as_string(), note)};
    if (assumption)
      return {value, Citation{Citation::Kind::assumption, assumption->as_string()}};
    if (default_citation_)
      return {value, *default_citation_};
    node.fail(
        "this value needs a \"source\" (a key of models/catalog/data/sources.yaml) or an \"assumption\"");
  }
  if (!default_citation_)
    node.fail(
        "this value needs a source: write {value: ..., source: KEY} or {value: ..., assumption: \"why\"}, "
        "or give the entry a source");
  return {node, *default_citation_};
}

Cited<double> EntryReader::number(std::string_view key, double min, double max) {
  auto [node, cite] = value_and_citation(map_.required(key, "a number"));
  return Cited<double>{node.as_number(min, max), cite};
}

std::optional<Cited<double>> EntryReader::optional_number(std::string_view key, double min, double max) {
  auto n = map_.optional(key);
  if (!n)
    return std::nullopt;
  auto [node, cite] = value_and_citation(*n);
  return Cited<double>{node.as_number(min, max), cite};
}

Cited<int> EntryReader::count(std::string_view key, int min, int max) {
  auto [node, cite] = value_and_citation(map_.required(key, "a whole number"));
  return Cited<int>{static_cast<int>(node.as_int(min, max)), cite};
}

std::optional<Cited<int>> EntryReader::optional_count(std::string_view key, int min, int max) {
  auto n = map_.optional(key);
  if (!n)
    return std::nullopt;
  auto [node, cite] = value_and_citation(*n);
  return Cited<int>{static_cast<int>(node.as_int(min, max)), cite};
}

Cited<bool> EntryReader::flag(std::string_view key) {
  auto [node, cite] = value_and_citation(map_.required(key, "true or false"));
  return Cited<bool>{node.as_bool(), cite};
}

std::string EntryReader::text(std::string_view key) {
  return map_.required(key).as_string();
}

std::optional<std::string> EntryReader::optional_text(std::string_view key) {
  auto n = map_.optional(key);
  if (!n)
    return std::nullopt;
  return n->as_string();
}

} // namespace dpusim::catalog
