// The hardware and model catalog: YAML entries under models/catalog/data/<kind>/<name>.yaml, each number
// with its source. Loaded once per run; lookups by name with "did you mean" on a miss.
#pragma once

#include "models/base/yaml_reader.hpp"
#include "models/catalog/collective_spec.hpp"
#include "models/catalog/congestion_spec.hpp"
#include "models/catalog/cpu_spec.hpp"
#include "models/catalog/gpu_spec.hpp"
#include "models/catalog/nic_spec.hpp"
#include "models/catalog/node_spec.hpp"
#include "models/catalog/sources.hpp"
#include "models/workload/transformer.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::catalog {

struct ModelEntry {
  workload::TransformerShape shape;
  std::string description;
  Citation cite;
};

/// A catalog entry that could not be read (its file, a reference to an entry that does not exist): left
/// out of the catalog, named by its file.
struct BrokenEntry {
  std::string kind; // gpu, cpu, nic, ...
  std::string name; // the file's stem
  InputError error;
};

class Catalog {
public:
  /// Loads every entry under `dir`. An entry that cannot be read is left out and kept in broken(): a
  /// lookup of its name throws its InputError (so a scenario that uses it is refused with the entry's
  /// file, line and key), and the catalog's other entries serve as before. Throws InputError where the
  /// catalog as a whole is unreadable (its sources.yaml).
  static Catalog load(const std::filesystem::path& dir);
  /// The entries load() left out, in file order.
  [[nodiscard]] const std::vector<BrokenEntry>& broken() const { return broken_; }
  /// The broken entry `name` of `kind` (gpu, cpu, nic, node, switch, collective, congestion, llm), if any.
  [[nodiscard]] const BrokenEntry* broken_entry(std::string_view kind, const std::string& name) const;
  /// The catalog directory: $DPUSIM_DATA_DIR/models/catalog if set, else the one compiled in.
  static std::filesystem::path default_directory();
  /// The kinds of entry, each a folder of the catalog directory: gpu, cpu, nic, node, switch, ...
  static const std::vector<std::string>& kinds();
  /// Reads `root` as an entry of `kind`, as load() reads each file (citations checked against this
  /// catalog's sources.yaml, GEMM tables next to its GPU entries) without the checks between files
  /// (its name against the file's, references to other entries); throws InputError on any problem.
  void read_entry(std::string_view kind, const yaml::Node& root) const;

  [[nodiscard]] const GpuSpec* gpu(const std::string& name) const { return find(gpus_, "gpu", name); }
  [[nodiscard]] const CpuSpec* cpu(const std::string& name) const { return find(cpus_, "cpu", name); }
  [[nodiscard]] const NicSpec* nic(const std::string& name) const { return find(nics_, "nic", name); }
  [[nodiscard]] const NodeSpec* node(const std::string& name) const { return find(nodes_, "node", name); }
  [[nodiscard]] const SwitchSpec* network_switch(const std::string& name) const {
    return find(switches_, "switch", name);
  }
  [[nodiscard]] const ModelEntry* model(const std::string& name) const { return find(models_, "llm", name); }
  [[nodiscard]] const CollectiveSpec* collective(const std::string& name) const {
    return find(collectives_, "collective", name);
  }

  [[nodiscard]] const CongestionSpec* congestion(const std::string& name) const {
    return find(congestions_, "congestion", name);
  }

  [[nodiscard]] std::vector<std::string> gpu_names() const { return names(gpus_); }
  [[nodiscard]] std::vector<std::string> cpu_names() const { return names(cpus_); }
  [[nodiscard]] std::vector<std::string> nic_names() const { return names(nics_); }
  [[nodiscard]] std::vector<std::string> node_names() const { return names(nodes_); }
  [[nodiscard]] std::vector<std::string> switch_names() const { return names(switches_); }
  [[nodiscard]] std::vector<std::string> model_names() const { return names(models_); }
  [[nodiscard]] std::vector<std::string> collective_names() const { return names(collectives_); }
  [[nodiscard]] std::vector<std::string> congestion_names() const { return names(congestions_); }
  [[nodiscard]] const Sources& sources() const { return sources_; }
  [[nodiscard]] const std::filesystem::path& directory() const { return dir_; }

private:
  template <class T>
  const T* find(const std::map<std::string, T>& m, std::string_view kind, const std::string& name) const {
    auto it = m.find(name);
    if (it != m.end())
      return &it->second;
    throw_if_broken(kind, name);
    return nullptr;
  }
  /// Throws the error of the broken entry `name` of `kind`, if there is one.
  void throw_if_broken(std::string_view kind, const std::string& name) const;
  template <class T>
  static std::vector<std::string> names(const std::map<std::string, T>& m) {
    std::vector<std::string> out;
    for (const auto& [k, v] : m)
      out.push_back(k);
    return out;
  }

  std::filesystem::path dir_;
  Sources sources_;
  std::map<std::string, GpuSpec> gpus_;
  std::map<std::string, CpuSpec> cpus_;
  std::map<std::string, NicSpec> nics_;
  std::map<std::string, NodeSpec> nodes_;
  std::map<std::string, SwitchSpec> switches_;
  std::map<std::string, ModelEntry> models_;
  std::map<std::string, CollectiveSpec> collectives_;
  std::map<std::string, CongestionSpec> congestions_;
  std::vector<BrokenEntry> broken_;
};

} // namespace dpusim::catalog
