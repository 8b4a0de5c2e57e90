#include "models/core/yaml_reader.hpp"

#include "models/core/text_distance.hpp"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>
#include <yaml-cpp/eventhandler.h>

namespace dpusim::yaml {
namespace {

Location location_of(const YAML::Mark& mark, const std::string& file, const Location& fallback) {
  if (mark.line < 0 || mark.is_null())
    return fallback.line > 0 ? fallback : Location{file, 0, 0};
  return Location{file, mark.line + 1, mark.column + 1};
}

std::string child_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

} // namespace

Node::Node(YAML::Node node, std::shared_ptr<const std::string> file, std::string path, Location fallback)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)), fallback_(std::move(fallback)) {
}

Location Node::location() const {
  if (!node_.IsDefined())
    return fallback_;
  return location_of(node_.Mark(), *file_, fallback_);
}

void Node::fail(const std::string& message) const {
  throw InputError(location(), path_, message);
}

std::string Node::describe_found() const {
  if (is_null())
    return "nothing";
  if (node_.IsMap())
    return "a mapping";
  if (node_.IsSequence())
    return "a list";
  const std::string& text = node_.Scalar();
  constexpr std::size_t kShown = 60; // a long value (a whole file read as YAML) is cut short
  return text.size() <= kShown ? fmt::format("\"{}\"", text)
                               : fmt::format("\"{}...\"", text.substr(0, kShown));
}

std::string Node::scalar_text(std::string_view expected) const {
  if (!node_.IsDefined() || node_.IsNull() || !node_.IsScalar())
    fail(fmt::format("expected {}, found {}", expected, describe_found()));
  return node_.Scalar();
}

std::string Node::as_string() const {
  std::string s = scalar_text("a text value");
  if (s.empty())
    fail("expected a non-empty text value");
  return s;
}

std::int64_t Node::as_int(std::int64_t min, std::int64_t max) const {
  const std::string text = scalar_text("a whole number");
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used, 10);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || used == 0)
    fail(fmt::format("expected a whole number, found \"{}\"", text));
  if (v < min)
    fail(min == max ? fmt::format("must be {}, found {}", min, v)
                    : fmt::format("must be at least {}, found {}", min, v));
  if (v > max)
    fail(fmt::format("must be at most {}, found {}", max, v));
  return v;
}

double Node::as_number(double min, double max) const {
  const std::string text = scalar_text("a number");
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || used == 0 || !std::isfinite(v))
    fail(fmt::format("expected a number, found \"{}\"", text));
  if (v < min || v > max)
    fail(fmt::format("must be between {:g} and {:g}, found {:g}", min, max, v));
  return v;
}

bool Node::as_bool() const {
  const std::string text = scalar_text("true or false");
  if (text == "true")
    return true;
  if (text == "false")
    return false;
  fail(fmt::format("expected true or false, found \"{}\"", text));
}

std::string Node::as_choice(const std::vector<std::string>& valid) const {
  const std::string text = scalar_text(fmt::format("one of: {}", join(valid)));
  for (const auto& v : valid) {
    if (v == text)
      return text;
  }
  const std::string hint = did_you_mean(text, valid);
  fail(fmt::format("\"{}\" is not valid{}; valid values: {}", text,
                   hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint), join(valid)));
}

Map Node::as_map() const {
  if (!node_.IsDefined() || !node_.IsMap())
    fail(fmt::format("expected a mapping of keys to values, found {}", describe_found()));
  return Map(*this);
}

Seq Node::as_sequence() const {
  if (!node_.IsDefined() || !node_.IsSequence())
    fail(fmt::format("expected a list, found {}", describe_found()));
  return Seq(*this);
}

Map::Map(Node node) : node_(std::move(node)) {
  std::set<std::string, std::less<>> seen;
  for (const auto& kv : node_.raw()) {
    if (!kv.first.IsScalar())
      throw InputError(location_of(kv.first.Mark(), node_.file(), node_.location()), node_.path(),
                       "keys must be plain names");
    std::string key = kv.first.Scalar();
    if (!seen.insert(key).second)
      throw InputError(location_of(kv.first.Mark(), node_.file(), node_.location()),
                       child_path(node_.path(), key),
                       "duplicate key: it appears more than once in this mapping");
    entries_.push_back(Entry{std::move(key), kv.first, kv.second});
  }
}

Node Map::child(const Entry& e) const {
  const Location key_loc = location_of(e.key_node.Mark(), node_.file(), node_.location());
  return Node(e.value, node_.file_, child_path(node_.path(), e.key), key_loc);
}

Node Map::required(std::string_view key, std::string_view expected) {
  allow(key);
  for (const auto& e : entries_) {
    if (e.key == key)
      return child(e);
  }
  std::string message = expected.empty() ? std::string("missing required key")
                                         : fmt::format("missing required key (expected {})", expected);
  // With the accepted keys declared up front, an undeclared key close to the missing one is most likely
  // a misspelling of it.
  std::vector<std::string> unknown;
  for (const auto& e : entries_)
    if (declared_upfront_ && !declared_set_.contains(e.key))
      unknown.push_back(e.key);
  const std::string typo = did_you_mean(key, unknown);
  if (!typo.empty()) {
    for (const auto& e : entries_)
      if (e.key == typo)
        throw InputError(location_of(e.key_node.Mark(), node_.file(), node_.location()),
                         child_path(node_.path(), key),
                         fmt::format("{}; \"{}\" here looks like a misspelling of it", message, typo));
  }
  throw InputError(node_.location(), child_path(node_.path(), key), message);
}

std::optional<Node> Map::optional(std::string_view key) {
  allow(key);
  for (const auto& e : entries_) {
    if (e.key == key)
      return child(e);
  }
  return std::nullopt;
}

bool Map::contains(std::string_view key) const {
  for (const auto& e : entries_) {
    if (e.key == key)
      return true;
  }
  return false;
}

std::vector<std::pair<std::string, Node>> Map::items() {
  all_consumed_ = true;
  std::vector<std::pair<std::string, Node>> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_)
    out.emplace_back(e.key, child(e));
  return out;
}

void Map::allow(std::string_view key) {
  if (declared_set_.insert(std::string(key)).second)
    declared_.emplace_back(key);
}

void Map::declare(std::initializer_list<std::string_view> keys) {
  for (auto k : keys)
    allow(k);
  declared_upfront_ = true;
}

void Map::declare(const std::vector<std::string_view>& keys) {
  for (auto k : keys)
    allow(k);
  declared_upfront_ = true;
}

void Map::finish() const {
  if (all_consumed_)
    return;
  for (const auto& e : entries_) {
    if (declared_set_.contains(e.key))
      continue;
    const std::string hint = did_you_mean(e.key, declared_);
    std::string message = "unknown key";
    if (!hint.empty())
      message += fmt::format("; did you mean \"{}\"?", hint);
    message += declared_.empty() ? std::string("; this mapping takes no keys")
                                 : fmt::format(" (valid keys here: {})", join(declared_));
    throw InputError(location_of(e.key_node.Mark(), node_.file(), node_.location()),
                     child_path(node_.path(), e.key), message);
  }
}

Seq::Seq(Node node) : node_(std::move(node)) {
  std::size_t i = 0;
  for (const auto& item : node_.raw()) {
    items_.emplace_back(item, node_.file_, fmt::format("{}[{}]", node_.path(), i), node_.location());
    ++i;
  }
}

namespace {

/// Where each document of a stream starts and where its first node is, from yaml-cpp's events.
class DocumentMarks : public YAML::EventHandler {
public:
  struct Document {
    YAML::Mark start;
    std::optional<YAML::Mark> first_node;
  };
  std::vector<Document> documents;

  void OnDocumentStart(const YAML::Mark& mark) override { documents.push_back({mark, std::nullopt}); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                const std::string& /*value*/) override {
    node(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                       YAML::EmitterStyle::value /*style*/) override {
    node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value /*style*/) override {
    node(mark);
  }
  void OnMapEnd() override {}

private:
  void node(const YAML::Mark& mark) {
    if (!documents.empty() && !documents.back().first_node)
      documents.back().first_node = mark;
  }
};

} // namespace

Node parse_text(const std::string& text, const std::string& name) {
  auto file = std::make_shared<const std::string>(name);
  auto at = [&](const YAML::Mark& m) { return Location{name, m.line + 1, m.column + 1}; };
  try {
    // A file holds one document. yaml-cpp 0.7's LoadAll never ends on a stream where a token starts no
    // document (a lone ","; its issue 1040, fixed after 0.8): the documents are counted here with at
    // most three calls of the parser, and one that does not move past the previous one's start is an
    // error at that token.
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentMarks marks;
    for (int i = 0; i < 3 && parser.HandleNextDocument(marks); ++i) {
      const auto& d = marks.documents;
      if (d.size() >= 2 && d[d.size() - 1].start.pos == d[d.size() - 2].start.pos)
        throw InputError(at(d[d.size() - 2].start), "",
                         "invalid YAML: no document can start with the text here (a stray ',' or another "
                         "token out of place)");
    }
    if (marks.documents.size() > 1) {
      const auto& second = marks.documents[1];
      throw InputError(at(second.first_node.value_or(second.start)), "",
                       "a second YAML document (after \"---\"): a file holds one scenario, entry or profile");
    }
    const YAML::Node root = marks.documents.empty() ? YAML::Node() : YAML::Load(text);
    return Node(root, file, "", Location{name, 1, 1});
  } catch (const YAML::ParserException& e) {
    throw InputError(Location{name, e.mark.line + 1, e.mark.column + 1}, "",
                     fmt::format("invalid YAML: {}", e.msg));
  }
}

Node load_file(const std::string& path) {
  // Scenarios, catalog entries and profiles are small text files: anything else (a directory, a
  // device, a file of many megabytes) is refused before it is read.
  constexpr std::uintmax_t kMaxBytes = 16u << 20;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw InputError(Location{path, 0, 0}, "", "cannot open the file (does it exist and is it readable?)");
  if (!std::filesystem::is_regular_file(status))
    throw InputError(Location{path, 0, 0}, "",
                     std::filesystem::is_directory(status) ? "is a directory, not a YAML file"
                                                           : "is not a regular file (a device or a pipe?)");
  if (std::filesystem::file_size(path, ec) > kMaxBytes)
    throw InputError(Location{path, 0, 0}, "",
                     "is larger than 16 MiB: not a scenario, catalog entry or profile");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(Location{path, 0, 0}, "", "cannot open the file (does it exist and is it readable?)");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_text(text.str(), path);
}

} // namespace dpusim::yaml
