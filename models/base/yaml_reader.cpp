#include "models/base/yaml_reader.hpp"

#include "models/base/input_file.hpp"
#include "models/base/text_distance.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>
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
  // Digits with an optional sign: a whole number, even one beyond 64 bits (then out of any range).
  const std::size_t digits_from = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  const bool whole = text.size() > digits_from &&
                     std::all_of(text.begin() + static_cast<std::ptrdiff_t>(digits_from), text.end(),
                                 [](unsigned char ch) { return std::isdigit(ch) != 0; });
  if (!whole)
    fail(fmt::format("expected a whole number, found \"{}\"", text));
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  const bool overflow = errno == ERANGE;
  const bool below = overflow ? text[0] == '-' : v < min;
  const bool above = overflow ? text[0] != '-' : v > max;
  const std::string found = overflow ? text : std::to_string(v);
  if (below || above) {
    if (min == max)
      fail(fmt::format("must be {}, found {}", min, found));
    if (below && max == std::numeric_limits<std::int64_t>::max())
      fail(fmt::format("must be at least {}, found {}", min, found));
    fail(fmt::format("must be {} {}, found {} (valid: {} to {})", below ? "at least" : "at most",
                     below ? min : max, found, min, max));
  }
  return v;
}

double Node::as_number(double min, double max) const {
  const std::string text = scalar_text("a number");
  // strtod rather than stod: a number beyond a double's range is out of range, not "not a number", and
  // one below its smallest is as good as zero.
  errno = 0;
  char* end = nullptr;
  const double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0])) != 0
                       ? std::nan("")
                       : std::strtod(text.c_str(), &end);
  const bool parsed = end != nullptr && end == text.c_str() + text.size();
  const bool numeral =
      parsed && std::all_of(text.begin(), text.end(), [](unsigned char ch) {
        return std::isdigit(ch) != 0 || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-';
      });
  if (!numeral || std::isnan(v))
    fail(fmt::format("expected a number, found \"{}\"", text));
  if (std::isinf(v))
    fail(fmt::format("must be between {:g} and {:g}, found {}", min, max, text));
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

/// Where each document of a stream starts and where its first node is, from yaml-cpp's events; and the
/// budgets that keep what follows bounded: at most kMaxNodes nodes, an alias counted as a copy of what
/// it names (the readers walk through aliases: ten lines of aliases can stand for a billion nodes), and
/// at most kMaxDepth mappings and lists inside one another (yaml-cpp's own limit, 500, says only "bad
/// file").
class DocumentMarks : public YAML::EventHandler {
public:
  struct Document {
    YAML::Mark start;
    std::optional<YAML::Mark> first_node;
  };
  std::vector<Document> documents;

  explicit DocumentMarks(std::string file) : file_(std::move(file)) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    documents.push_back({mark, std::nullopt});
    sizes_.clear(); // each document numbers its anchors from 1
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    node(mark);
    const auto it = sizes_.find(anchor);
    if (it == sizes_.end()) // still open: the alias is inside the node it names
      throw InputError(at(mark), "",
                       "an alias inside the node its anchor names: a node cannot contain itself");
    count(mark, it->second);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                const std::string& /*value*/) override {
    leaf(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value /*style*/) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

private:
  struct Open {
    std::uint64_t nodes; // in this collection so far, itself included
    YAML::anchor_t anchor;
  };

  [[nodiscard]] Location at(const YAML::Mark& m) const { return Location{file_, m.line + 1, m.column + 1}; }
  void node(const YAML::Mark& mark) {
    if (!documents.empty() && !documents.back().first_node)
      documents.back().first_node = mark;
  }
  void count(const YAML::Mark& mark, std::uint64_t n) {
    total_ += n; // each n is at most kMaxNodes: no overflow
    if (!open_.empty())
      open_.back().nodes += n;
    check(mark);
  }
  /// Every node counts against the budget as it is read, an empty list or mapping too: 5 million `[]`
  /// would otherwise be built into a tree of gigabytes before a reader saw the first.
  void check(const YAML::Mark& mark) const {
    if (total_ > kMaxNodes)
      throw InputError(at(mark), "",
                       fmt::format("more than {} YAML nodes (values, keys, mappings and lists; an alias "
                                   "counts as a copy of what it names): a scenario, profile or catalog "
                                   "entry needs a few hundred, and reading more would only cost memory",
                                   kMaxNodes));
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    node(mark);
    count(mark, 1);
    if (anchor != YAML::NullAnchor)
      sizes_[anchor] = 1;
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    node(mark);
    if (open_.size() >= kMaxDepth)
      throw InputError(at(mark), "",
                       fmt::format("mappings and lists nested more than {} deep: a scenario, profile or "
                                   "catalog entry needs fewer than ten levels",
                                   kMaxDepth));
    total_ += 1;
    check(mark);
    open_.push_back({1, anchor});
  }
  void close() {
    const Open done = open_.back();
    open_.pop_back();
    if (!open_.empty())
      open_.back().nodes += done.nodes;
    if (done.anchor != YAML::NullAnchor)
      sizes_[done.anchor] = done.nodes;
  }

  std::string file_;
  std::vector<Open> open_;
  std::unordered_map<YAML::anchor_t, std::uint64_t> sizes_; // expanded size of each anchored node
  std::uint64_t total_ = 0;
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
    DocumentMarks marks(name);
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
  // Scenarios, catalog entries and profiles are small text files.
  return parse_text(read_input_file(path, "a scenario, catalog entry or profile"), path);
}

} // namespace dpusim::yaml
