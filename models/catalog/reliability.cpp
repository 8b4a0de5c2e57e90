#include "models/catalog/reliability.hpp"

#include "models/catalog/entry_reader.hpp"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <string>

namespace dpusim::catalog {

std::optional<InterruptionRate> read_interruptions(EntryReader& r, std::string_view key) {
  const auto node = r.optional_node(key);
  if (!node)
    return std::nullopt;
  auto m = node->as_map();
  m.declare({"count", "per", "over", "source", "assumption", "note"});
  InterruptionRate rate;
  rate.count = m.required("count", "interruptions attributed to the component").as_number(0, 1e9);
  rate.units = m.required("per", "how many of the component the study covers").as_number(1, 1e9);
  const auto over = m.required("over", "the study's period, e.g. 54d");
  const std::string text = over.as_string();
  double scale = 0;
  std::string number = text;
  for (const auto& [suffix, seconds] :
       {std::pair{"d", 86400.0}, std::pair{"h", 3600.0}, std::pair{"w", 604800.0}})
    if (text.size() > 1 && text.substr(text.size() - 1) == suffix) {
      scale = seconds;
      number = text.substr(0, text.size() - 1);
    }
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (scale == 0 || number.empty() || end != number.c_str() + number.size() || !std::isfinite(v) || v <= 0)
    over.fail(fmt::format("expected a period in days, hours or weeks (54d, 12h, 2w), found \"{}\"", text));
  rate.period_s = v * scale;
  const auto source = m.optional("source");
  const auto assumption = m.optional("assumption");
  std::string note;
  if (auto n = m.optional("note"))
    note = n->as_string();
  m.finish();
  if (source && assumption)
    node->fail("give either a source or an assumption, not both");
  if (source) {
    rate.cite = r.citation_from_keys(*source);
    if (!note.empty())
      rate.cite.text += " (" + note + ")";
  } else if (assumption) {
    rate.cite = Citation{Citation::Kind::assumption, assumption->as_string()};
  } else {
    node->fail("an interruption rate needs a \"source\" (a key of models/catalog/data/sources.yaml) or an "
               "\"assumption\"");
  }
  return rate;
}

} // namespace dpusim::catalog
