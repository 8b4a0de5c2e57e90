// A model's part in explaining a comparison: sentences only that model can say, from the result
// fields it owns. The command that explains takes them from the model registry; each hook returns an
// empty string where it has nothing to say.
#pragma once

#include <string>

namespace dpusim::report {

struct VariantResult;

struct Explainer {
  /// Why `slow` takes longer than `fast`, given the share of the difference that is exposed
  /// communication; replaces the generic cause.
  std::string (*cause)(const VariantResult& slow, const VariantResult& fast, double comm_share) = nullptr;
  /// Why two variants' steps barely differ: a clause of the sentence that lists the reasons.
  std::string (*unchanged)(const VariantResult& base, const VariantResult& r) = nullptr;
  /// What a DPU variant buys over the plain RDMA NIC variant.
  std::string (*dpu_over_nic)(const VariantResult& dpu, const VariantResult& nic) = nullptr;
  /// A sentence added to a variant's paragraph whatever the cause (e.g. what happened to the tail).
  std::string (*also)(const VariantResult& base, const VariantResult& r) = nullptr;
};

} // namespace dpusim::report
