// Offload as placement: each variant puts the transport, storage client, encryption, virtual switch
// and agents on the host, the NIC's hardware or a DPU's Arm cores (sim/offload/variant.hpp); the
// baseline is the one the others are compared with.
#include "sim/model/sections/offload_model.hpp"

#include "sim/model/model.hpp"
#include "sim/scenario/hardware.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <memory>
#include <string_view>
#include <unordered_set>

namespace dpusim::model {
namespace {

class OffloadModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "offload"; }
  [[nodiscard]] std::string_view summary() const override {
    return "variants: where each host-side function runs (host, NIC hardware, DPU Arm cores)";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"offload.baseline", "variant", "required", "the variant the others are compared with"},
        {"offload.variants", "list", "none", "other variants: preset names, placements or {name, placement}"},
        {"offload.variants[].name", "text", "required", "a variant's name (letters, digits, - _ . + =)"},
        {"offload.variants[].placement", "placement", "required",
         "a preset with +function=site changes, e.g. rdma-nic+storage=dpu_arm"},
    };
  }
  void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const override {
    if (s.variants.empty()) {
      out.push_back({"offload.baseline", "missing required key (expected a variant name)"});
      return;
    }
    if (s.variants.size() > kMaxVariants) {
      out.push_back({"offload.variants", too_many_variants(s.variants.size())});
      return;
    }
    std::unordered_set<std::string_view> names;
    for (std::size_t i = 0; i < s.variants.size(); ++i) {
      const auto& v = s.variants[i];
      const std::string key = i == 0 ? "offload.baseline" : fmt::format("offload.variants[{}]", i - 1);
      if (!plain_variant_name(v.name))
        out.push_back({key, "a variant name has 1 to 64 letters, digits, '-', '_', '.', '+' or '='"});
      if (!names.insert(v.name).second)
        out.push_back({key, fmt::format("variant \"{}\" is listed twice (the baseline and variants share one "
                                        "list of names)",
                                        v.name)});
      if (auto why = variant_problem(s, cat, v); !why.empty())
        out.push_back({key, std::move(why)});
    }
  }
};

} // namespace

std::string variant_problem(const scenario::Scenario& s, const catalog::Catalog& cat,
                            const offload::Variant& v) {
  const auto req = scenario::requirements(s, cat);
  if (const auto why = offload::moves_unused(v, req); !why.empty())
    return fmt::format("variant \"{}\": {}", v.name, why);
  // On a separate storage fabric only the storage port's DPU can run SNAP: where the port is no DPU, say
  // so, rather than ask for training DPUs that would not carry the storage traffic either.
  if (const auto& st = s.cluster.storage; st.separate_fabric && !st.node_nic.empty() &&
                                          offload::matters(offload::Function::storage, req) &&
                                          v.placement[offload::Function::storage] == offload::Site::dpu_arm &&
                                          !req.on_frontend(offload::Function::storage))
    return fmt::format("variant \"{}\" places storage on dpu_arm, but each tray's storage port ({}, "
                       "cluster.storage.node_nic) has no Arm cores that run it; give it a DPU (e.g. "
                       "bluefield-3)",
                       v.name, st.node_nic);
  if (v.on_dpu && s.cluster.dpu.empty())
    return fmt::format("variant \"{}\" needs a DPU but the catalog has none built around {}; add cluster.dpu "
                       "(e.g. bluefield-3)",
                       v.name, s.cluster.nic);
  const auto* device = cat.nic(v.on_dpu ? s.cluster.dpu : s.cluster.nic);
  if (device == nullptr)
    return {}; // the cluster model reports the unknown device
  if (const auto why = offload::unsupported(v, *device, req); !why.empty())
    return fmt::format("variant \"{}\": {}", v.name, why);
  return {};
}

std::string too_many_variants(std::size_t count) {
  return fmt::format("{} variants, the baseline included; at most {} are compared: each is a simulation of "
                     "its own, and {} is more than every placement (five functions on three sites, 243) on "
                     "both the NIC and the DPU",
                     count, kMaxVariants, kMaxVariants);
}

bool plain_variant_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](unsigned char ch) {
    return std::isalnum(ch) != 0 || ch == '-' || ch == '_' || ch == '.' || ch == '+' || ch == '=';
  });
}

std::unique_ptr<Model> make_offload_model() {
  return std::make_unique<OffloadModel>();
}

} // namespace dpusim::model
