#include "models/catalog/catalog.hpp"

#include "models/base/text_distance.hpp"
#include "models/catalog/entry_reader.hpp"
#include "models/workload/transformer_reader.hpp"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <optional>
#include <stdexcept>

#ifndef DPUSIM_DEFAULT_DATA_DIR
#define DPUSIM_DEFAULT_DATA_DIR "."
#endif

namespace dpusim::catalog {
namespace {

std::vector<std::filesystem::path> entries_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(dir))
    return files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".yaml")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// One entry read by the reader of its kind: the root's map, with its name, description and source.
template <class ReadFn>
auto read_one(const yaml::Node& root, const Sources& sources, const std::string& file_stem, ReadFn read) {
  EntryReader reader(root.as_map(), sources);
  if (!file_stem.empty() && reader.name() != file_stem)
    root.as_map().required("name").fail(
        fmt::format("the entry's name must match its file name \"{}\"", file_stem));
  auto spec = read(reader);
  reader.finish();
  return std::pair{reader.name(), std::move(spec)};
}

/// Reads every entry of one kind; an entry that cannot be read goes to `broken` instead.
template <class T, class ReadFn>
void load_kind(const std::filesystem::path& root, std::string_view kind, const Sources& sources,
               std::map<std::string, T>& into, std::vector<BrokenEntry>& broken, ReadFn read) {
  for (const auto& file : entries_in(root / kind)) {
    try {
      auto [name, spec] = read_one(yaml::load_file(file.string()), sources, file.stem().string(), read);
      into.emplace(std::move(name), std::move(spec));
    } catch (const InputError& e) {
      broken.push_back({std::string(kind), file.stem().string(), e});
    }
  }
}

ModelEntry read_model_entry(EntryReader& r) {
  ModelEntry e;
  e.description = r.description();
  if (!r.default_citation())
    r.map().required("source", "a source for the model's shape");
  e.cite = *r.default_citation();
  e.shape = workload::read_transformer_shape(r.map(), r.name());
  return e;
}

} // namespace

std::filesystem::path Catalog::default_directory() {
  if (const char* env = std::getenv("DPUSIM_DATA_DIR"); env != nullptr && *env != '\0')
    return std::filesystem::path(env) / "models" / "catalog" / "data";
  return std::filesystem::path(DPUSIM_DEFAULT_DATA_DIR) / "models" / "catalog" / "data";
}

Catalog Catalog::load(const std::filesystem::path& dir) {
  Catalog c;
  c.dir_ = dir;
  const auto sources_file = dir / "sources.yaml";
  if (!std::filesystem::exists(sources_file))
    throw InputError(
        Location{sources_file.string(), 0, 0}, "",
        "the catalog's bibliography is missing (is the catalog directory right? set DPUSIM_DATA_DIR "
        "to the dpusim source tree)");
  c.sources_ = Sources::load(sources_file.string());
  const auto gpu_dir = (dir / "gpu").string();
  auto& broken = c.broken_;
  load_kind(dir, "gpu", c.sources_, c.gpus_, broken, [&](EntryReader& r) { return read_gpu(r, gpu_dir); });
  load_kind(dir, "cpu", c.sources_, c.cpus_, broken, [](EntryReader& r) { return read_cpu(r); });
  load_kind(dir, "nic", c.sources_, c.nics_, broken,
            [&c](EntryReader& r) { return read_nic(r, c.sources_); });
  load_kind(dir, "node", c.sources_, c.nodes_, broken, [](EntryReader& r) { return read_node(r); });
  load_kind(dir, "switch", c.sources_, c.switches_, broken, [](EntryReader& r) { return read_switch(r); });
  load_kind(dir, "collective", c.sources_, c.collectives_, broken,
            [](EntryReader& r) { return read_collective(r); });
  load_kind(dir, "congestion", c.sources_, c.congestions_, broken,
            [](EntryReader& r) { return read_congestion(r); });
  load_kind(dir, "llm", c.sources_, c.models_, broken, [](EntryReader& r) { return read_model_entry(r); });
  // Cross-references between entries: a node whose parts are missing or broken is broken too.
  for (auto it = c.nodes_.begin(); it != c.nodes_.end();) {
    const auto& [name, node] = *it;
    const auto file = (dir / "node" / (name + ".yaml")).string();
    std::optional<InputError> problem;
    auto check = [&](const std::string& ref, std::string_view kind, std::vector<std::string> valid,
                     const char* key) {
      if (problem || std::find(valid.begin(), valid.end(), ref) != valid.end())
        return;
      const auto* part = c.broken_entry(kind, ref);
      problem = InputError(
          Location{file, 0, 0}, key,
          part != nullptr
              ? fmt::format("its {} entry \"{}\" cannot be read: {}", kind, ref, part->error.what())
              : fmt::format("\"{}\" is not in the catalog; valid: {}", ref, join(valid)));
    };
    check(node.gpu, "gpu", c.gpu_names(), "gpu");
    check(node.cpu, "cpu", c.cpu_names(), "cpu");
    check(node.nic, "nic", c.nic_names(), "nic");
    if (problem) {
      broken.push_back({"node", name, *problem});
      it = c.nodes_.erase(it);
    } else {
      ++it;
    }
  }
  return c;
}

} // namespace dpusim::catalog

namespace dpusim::catalog {

const BrokenEntry* Catalog::broken_entry(std::string_view kind, const std::string& name) const {
  const auto it = std::find_if(broken_.begin(), broken_.end(),
                               [&](const BrokenEntry& b) { return b.kind == kind && b.name == name; });
  return it == broken_.end() ? nullptr : &*it;
}

void Catalog::throw_if_broken(std::string_view kind, const std::string& name) const {
  if (const auto* b = broken_entry(kind, name))
    throw b->error;
}

const std::vector<std::string>& Catalog::kinds() {
  static const std::vector<std::string> k{"gpu",    "cpu",        "nic",        "node",
                                          "switch", "collective", "congestion", "llm"};
  return k;
}

void Catalog::read_entry(std::string_view kind, const yaml::Node& root) const {
  const auto& sources = sources_;
  if (kind == "gpu")
    (void)read_one(root, sources, "", [&](EntryReader& r) { return read_gpu(r, (dir_ / "gpu").string()); });
  else if (kind == "cpu")
    (void)read_one(root, sources, "", [](EntryReader& r) { return read_cpu(r); });
  else if (kind == "nic")
    (void)read_one(root, sources, "", [&](EntryReader& r) { return read_nic(r, sources); });
  else if (kind == "node")
    (void)read_one(root, sources, "", [](EntryReader& r) { return read_node(r); });
  else if (kind == "switch")
    (void)read_one(root, sources, "", [](EntryReader& r) { return read_switch(r); });
  else if (kind == "collective")
    (void)read_one(root, sources, "", [](EntryReader& r) { return read_collective(r); });
  else if (kind == "congestion")
    (void)read_one(root, sources, "", [](EntryReader& r) { return read_congestion(r); });
  else if (kind == "llm")
    (void)read_one(root, sources, "", [](EntryReader& r) { return read_model_entry(r); });
  else
    throw std::invalid_argument(fmt::format("no catalog entries of kind \"{}\"", kind));
}

} // namespace dpusim::catalog
