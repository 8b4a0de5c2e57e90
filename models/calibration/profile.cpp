#include "models/calibration/profile.hpp"

#include "models/base/atomic_file.hpp"
#include "models/base/text_distance.hpp"
#include "models/base/yaml_reader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace dpusim::calibration {

std::string_view provenance_name(Provenance p) {
  switch (p) {
  case Provenance::measured:
    return "measured";
  case Provenance::fitted:
    return "fitted";
  case Provenance::datasheet:
    return "datasheet";
  }
  return "measured";
}

const ProfileParam* Profile::find(std::string_view key) const {
  for (const auto& p : parameters) {
    if (p.key == key)
      return &p;
  }
  return nullptr;
}

void Profile::set(ProfileParam param) {
  for (auto& p : parameters) {
    if (p.key == param.key) {
      p = std::move(param);
      return;
    }
  }
  parameters.push_back(std::move(param));
}

namespace {

std::vector<std::string> registry_keys() {
  std::vector<std::string> keys;
  for (const auto& def : parameter_registry())
    keys.emplace_back(def.key);
  return keys;
}

void flatten(const yaml::Node& node, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (node.is_map()) {
    auto map = node.as_map();
    for (auto& [key, value] : map.items())
      flatten(value, prefix.empty() ? key : prefix + "." + key, out);
  } else if (node.is_sequence()) {
    std::string joined;
    for (const auto& item : node.as_sequence().items())
      joined += (joined.empty() ? "" : ", ") + (item.is_scalar() ? item.raw().Scalar() : std::string("..."));
    out[prefix] = joined;
  } else if (!node.is_null()) {
    out[prefix] = node.raw().Scalar();
  } else {
    out[prefix] = "";
  }
}

ProfileParam read_param(const std::string& key, const yaml::Node& node) {
  const ParamDef* def = find_parameter(key);
  if (def == nullptr) {
    const std::string hint = did_you_mean(key, registry_keys());
    node.fail(fmt::format("unknown calibration parameter{}; valid parameters: {}",
                          hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint),
                          join(registry_keys())));
  }
  auto map = node.as_map();
  ProfileParam p;
  p.key = key;
  const auto value_node = map.required("value", kind_name(def->kind));
  try {
    p.value =
        parse_parameter_value(*def, value_node.raw().IsScalar() ? value_node.raw().Scalar() : std::string());
  } catch (const units::UnitError& e) {
    value_node.fail(e.what());
  }
  const std::string prov = map.required("provenance").as_choice({"measured", "fitted", "datasheet"});
  p.provenance = prov == "measured" ? Provenance::measured
                 : prov == "fitted" ? Provenance::fitted
                                    : Provenance::datasheet;
  if (auto s = map.optional("source"))
    p.source = s->as_string();
  if (p.provenance == Provenance::datasheet && p.source.empty())
    map.node().fail("a datasheet value needs a \"source\" saying where it comes from");
  if (auto s = map.optional("probe"))
    p.probe = s->as_string();
  if (auto s = map.optional("samples"))
    p.samples = s->as_string();
  if (auto s = map.optional("note"))
    p.note = s->as_string();
  if (auto f = map.optional("fit")) {
    auto fm = f->as_map();
    FitQuality q;
    q.model = fm.required("model").as_string();
    q.samples = static_cast<int>(fm.required("samples").as_int(1, 1'000'000'000));
    for (auto& [mk, mv] : fm.items()) {
      if (mk == "model" || mk == "samples")
        continue;
      q.metrics[mk] = mv.as_number(-1e300, 1e300);
    }
    p.fit = q;
  }
  if (p.provenance == Provenance::fitted && !p.fit)
    map.node().fail("a fitted value needs a \"fit\" with its model and number of samples");
  map.finish();
  return p;
}

} // namespace

Profile load_profile(const std::string& path) {
  return parse_profile(yaml::load_file(path));
}

Profile parse_profile(const yaml::Node& root) {
  auto map = root.as_map();
  Profile profile;
  profile.version =
      static_cast<int>(map.required("dpusim_profile", "the profile format version, 1").as_int(1, 1));
  profile.complete = map.required("complete").as_bool();
  profile.created = map.required("created").as_string();
  profile.role = map.required("role").as_choice({"host_cpu", "dpu_arm"});
  if (auto m = map.optional("machine"))
    flatten(*m, "", profile.machine);
  if (auto t = map.optional("tools")) {
    auto tm = t->as_map();
    for (auto& [k, v] : tm.items())
      profile.tools[k] = v.is_null() ? std::string() : v.raw().Scalar();
  }
  if (auto n = map.optional("notes")) {
    for (const auto& item : n->as_sequence().items())
      profile.notes.push_back(item.as_string());
  }
  auto params = map.required("parameters").as_map();
  for (auto& [key, node] : params.items())
    profile.parameters.push_back(read_param(key, node));
  map.finish();
  return profile;
}

namespace {

void emit_nested(YAML::Emitter& out, const std::map<std::string, std::string>& flat) {
  // Re-nest "a.b.c" keys into mappings so that the profile reads naturally.
  YAML::Node root(YAML::NodeType::Map);
  for (const auto& [key, value] : flat) {
    YAML::Node cursor = root;
    std::size_t start = 0;
    while (true) {
      const auto dot = key.find('.', start);
      const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (dot == std::string::npos) {
        cursor[part] = value;
        break;
      }
      if (!cursor[part] || !cursor[part].IsMap())
        cursor[part] = YAML::Node(YAML::NodeType::Map);
      cursor.reset(cursor[part]);
      start = dot + 1;
    }
  }
  out << root;
}

} // namespace

std::string render_profile(const Profile& profile) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "dpusim_profile" << YAML::Value << profile.version;
  out << YAML::Key << "complete" << YAML::Value << profile.complete;
  out << YAML::Key << "created" << YAML::Value << profile.created;
  out << YAML::Key << "role" << YAML::Value << profile.role;
  out << YAML::Key << "machine" << YAML::Value;
  emit_nested(out, profile.machine);
  out << YAML::Key << "tools" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : profile.tools)
    out << YAML::Key << k << YAML::Value << v;
  out << YAML::EndMap;
  if (!profile.notes.empty()) {
    out << YAML::Key << "notes" << YAML::Value << YAML::BeginSeq;
    for (const auto& n : profile.notes)
      out << n;
    out << YAML::EndSeq;
  }
  out << YAML::Key << "parameters" << YAML::Value << YAML::BeginMap;
  for (const auto& p : profile.parameters) {
    const ParamDef* def = find_parameter(p.key);
    if (def == nullptr)
      throw std::invalid_argument(fmt::format("profile parameter \"{}\" is not in the registry", p.key));
    out << YAML::Key << p.key << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "value" << YAML::Value << format_parameter_value(*def, p.value);
    out << YAML::Key << "provenance" << YAML::Value << std::string(provenance_name(p.provenance));
    if (!p.source.empty())
      out << YAML::Key << "source" << YAML::Value << p.source;
    if (!p.probe.empty())
      out << YAML::Key << "probe" << YAML::Value << p.probe;
    if (!p.samples.empty())
      out << YAML::Key << "samples" << YAML::Value << p.samples;
    if (p.fit) {
      out << YAML::Key << "fit" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "model" << YAML::Value << p.fit->model;
      out << YAML::Key << "samples" << YAML::Value << p.fit->samples;
      for (const auto& [mk, mv] : p.fit->metrics)
        out << YAML::Key << mk << YAML::Value << fmt::format("{:.6g}", mv);
      out << YAML::EndMap;
    }
    if (!p.note.empty())
      out << YAML::Key << "note" << YAML::Value << p.note;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

void save_profile(const Profile& profile, const std::string& path) {
  write_file_atomically(path, render_profile(profile));
}

} // namespace dpusim::calibration
