// Reads one catalog entry strictly: every number carries a `source:` (keys from sources.yaml) or an
// `assumption:`, given per value as {value: ..., source: ...} or once for the whole entry.
#pragma once

#include "models/base/yaml_reader.hpp"
#include "models/catalog/cited.hpp"
#include "models/catalog/sources.hpp"

#include <optional>

namespace dpusim::catalog {

class EntryReader {
public:
  /// Reads `name`, `description` and an optional entry-wide `source` from the map.
  EntryReader(yaml::Map map, const Sources& sources);

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::string& description() const { return description_; }

  template <class Q>
  Cited<Q> quantity(std::string_view key);
  template <class Q>
  std::optional<Cited<Q>> optional_quantity(std::string_view key);
  Cited<double> number(std::string_view key, double min, double max);
  std::optional<Cited<double>> optional_number(std::string_view key, double min, double max);
  Cited<int> count(std::string_view key, int min, int max);
  std::optional<Cited<int>> optional_count(std::string_view key, int min, int max);
  Cited<bool> flag(std::string_view key);
  std::string text(std::string_view key);
  std::optional<std::string> optional_text(std::string_view key);
  std::optional<yaml::Node> optional_node(std::string_view key) { return map_.optional(key); }
  yaml::Map& map() { return map_; }
  [[nodiscard]] const std::optional<Citation>& default_citation() const { return default_citation_; }
  void finish() { map_.finish(); }

  /// A node holding source keys ("A, B"), each checked against sources.yaml.
  Citation citation_from_keys(const yaml::Node& node) { return check_sources(node, node.as_string(), ""); }
  /// Splits a node that is either {value, source|assumption[, note]} or a bare value.
  std::pair<yaml::Node, Citation> value_and_citation(const yaml::Node& node);

private:
  Citation check_sources(const yaml::Node& where, const std::string& keys, const std::string& note);

  yaml::Map map_;
  const Sources& sources_;
  std::string name_;
  std::string description_;
  std::optional<Citation> default_citation_;
};

template <class Q>
Cited<Q> EntryReader::quantity(std::string_view key) {
  auto [node, cite] = value_and_citation(map_.required(key, units::dimension_name<Q>()));
  return Cited<Q>{node.template as_quantity<Q>(), cite};
}

template <class Q>
std::optional<Cited<Q>> EntryReader::optional_quantity(std::string_view key) {
  auto n = map_.optional(key);
  if (!n)
    return std::nullopt;
  auto [node, cite] = value_and_citation(*n);
  return Cited<Q>{node.template as_quantity<Q>(), cite};
}

} // namespace dpusim::catalog
