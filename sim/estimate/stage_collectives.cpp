#include "sim/estimate/stage_collectives.hpp"

namespace dpusim::estimate {

StageCollectives::StageCollectives(const workload::Parallelism& p, int gpus_per_node, const CommCosts& comm,
                                   const NcclCommCosts* nccl, CollectiveAlgorithm algo)
    : comm_(comm), nccl_(nccl), algo_(algo), cost_stage_(static_cast<std::size_t>(p.pp), 0),
      groups_(static_cast<std::size_t>(p.pp)) {
  for (int st = 0; st < p.pp; ++st) {
    auto& groups = groups_[static_cast<std::size_t>(st)];
    for (int j = 0; j < p.tp; ++j)
      groups.push_back(workload::gradient_group(p, j, st));
    const auto& first_groups = groups_.front();
    const int shift = groups.front().front() - first_groups.front().front();
    bool aligned = shift % gpus_per_node == 0 && groups.size() == first_groups.size();
    for (std::size_t g = 0; aligned && g < groups.size(); ++g) {
      aligned = groups[g].size() == first_groups[g].size();
      for (std::size_t i = 0; aligned && i < groups[g].size(); ++i)
        aligned = groups[g][i] - first_groups[g][i] == shift;
    }
    cost_stage_[static_cast<std::size_t>(st)] = aligned ? 0 : st;
  }
}

const CommCost& StageCollectives::cost(CollectiveKind kind, int stage, double bytes) {
  const int from = cost_stage_[static_cast<std::size_t>(stage)];
  const auto& groups = groups_[static_cast<std::size_t>(from)];
  plan::NcclChoice choice{algo_};
  if (nccl_ != nullptr) {
    const std::tuple<int, int, double> size_key{static_cast<int>(kind), from, bytes};
    auto c = choices_.find(size_key);
    if (c == choices_.end())
      c = choices_.emplace(size_key, nccl_->choice(kind, groups.front(), bytes)).first;
    choice = c->second;
  }
  const std::tuple<int, int, int, int> key{static_cast<int>(kind), from, static_cast<int>(choice.algorithm),
                                           static_cast<int>(choice.protocol)};
  auto it = costs_.find(key);
  if (it == costs_.end())
    it = costs_
             .emplace(key, nccl_ != nullptr ? nccl_->collective(kind, choice, groups)
                                            : comm_.collective(kind, algo_, groups))
             .first;
  return it->second;
}

} // namespace dpusim::estimate
