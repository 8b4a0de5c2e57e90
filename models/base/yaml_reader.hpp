// Strict reading of YAML input: every value is reached through a Map that remembers which keys were
// asked for, so unknown keys are errors ("did you mean ...") instead of being silently ignored, and every
// error carries the file, line, column and dotted key path of the offending node.
#pragma once

#include "models/base/input_error.hpp"
#include "models/base/unit_parse.hpp"

#include <cstdint>
#include <fmt/format.h>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace dpusim::yaml {

class Map;
class Seq;

class Node {
public:
  Node(YAML::Node node, std::shared_ptr<const std::string> file, std::string path, Location fallback);

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const std::string& file() const { return *file_; }
  [[nodiscard]] Location location() const;
  [[noreturn]] void fail(const std::string& message) const;

  [[nodiscard]] bool is_map() const { return node_.IsMap(); }
  [[nodiscard]] bool is_sequence() const { return node_.IsSequence(); }
  [[nodiscard]] bool is_scalar() const { return node_.IsScalar(); }
  [[nodiscard]] bool is_null() const { return node_.IsNull() || !node_.IsDefined(); }

  [[nodiscard]] std::string as_string() const;
  [[nodiscard]] std::int64_t as_int(std::int64_t min, std::int64_t max) const;
  [[nodiscard]] double as_number(double min, double max) const;
  [[nodiscard]] bool as_bool() const;
  /// One of `valid`; otherwise an error listing them, with a suggestion for a near miss.
  [[nodiscard]] std::string as_choice(const std::vector<std::string>& valid) const;
  /// A quantity with its unit in the value ("400Gbps"); must be strictly positive unless allow_zero.
  template <class Q>
  [[nodiscard]] Q as_quantity(bool allow_zero = false) const;

  [[nodiscard]] Map as_map() const;
  [[nodiscard]] Seq as_sequence() const;
  [[nodiscard]] const YAML::Node& raw() const { return node_; }

private:
  friend class Map;
  friend class Seq;
  [[nodiscard]] std::string describe_found() const;
  [[nodiscard]] std::string scalar_text(std::string_view expected) const;

  YAML::Node node_;
  std::shared_ptr<const std::string> file_;
  std::string path_;
  Location fallback_;
};

class Map {
public:
  explicit Map(Node node);

  /// The value of `key`; a missing key is an error that says what is expected there.
  Node required(std::string_view key, std::string_view expected = {});
  std::optional<Node> optional(std::string_view key);
  [[nodiscard]] bool contains(std::string_view key) const;
  /// Every entry, in file order (for maps whose keys are names chosen by the user).
  std::vector<std::pair<std::string, Node>> items();
  /// Declares a key as known without reading it (e.g. handled by another reader).
  void allow(std::string_view key);
  /// Declares every key this mapping accepts before any is read: a missing required key can then be
  /// traced to a misspelt one ("seq_lne"), since any undeclared key is known to be wrong.
  void declare(std::initializer_list<std::string_view> keys);
  void declare(const std::vector<std::string_view>& keys);
  /// Throws for the first key that was never asked for, listing the valid keys.
  void finish() const;
  [[nodiscard]] const Node& node() const { return node_; }

private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };
  [[nodiscard]] Node child(const Entry& e) const;

  Node node_;
  std::vector<Entry> entries_;
  std::vector<std::string> declared_; // in the order asked, for messages
  std::set<std::string, std::less<>> declared_set_;
  bool all_consumed_ = false;
  bool declared_upfront_ = false;
};

class Seq {
public:
  explicit Seq(Node node);
  [[nodiscard]] std::size_t size() const { return items_.size(); }
  [[nodiscard]] const Node& at(std::size_t i) const { return items_.at(i); }
  [[nodiscard]] const std::vector<Node>& items() const& { return items_; }
  /// On a temporary (`node.as_sequence().items()`), a copy: safe in a range-for.
  [[nodiscard]] std::vector<Node> items() && { return std::move(items_); }
  [[nodiscard]] const Node& node() const { return node_; }

private:
  Node node_;
  std::vector<Node> items_;
};

/// What a file may hold beyond its size (models/base/input_file.hpp; docs/scenario-schema.md, "Limits"): a
/// stream with more nodes or deeper nesting is refused before a tree is built.
inline constexpr std::uint64_t kMaxNodes = 100'000;
inline constexpr std::size_t kMaxDepth = 64;

/// Parses a YAML file; syntax errors become InputError with the location yaml-cpp reports.
Node load_file(const std::string& path);
/// Parses YAML text; `name` stands for the file in messages.
Node parse_text(const std::string& text, const std::string& name);

template <class Q>
Q Node::as_quantity(bool allow_zero) const {
  const std::string text = scalar_text(units::dimension_name<Q>());
  Q value;
  try {
    value = units::parse_quantity<Q>(text);
  } catch (const units::UnitError& e) {
    fail(e.what());
  }
  if (value.si() < 0 || (!allow_zero && value.si() == 0))
    fail(fmt::format("must be {}, found \"{}\"", allow_zero ? "zero or more" : "greater than zero", text));
  return value;
}

} // namespace dpusim::yaml
