// What host or Arm CPU time goes to: the offloadable functions (in offload::Function order), then what
// always runs on the host. Apart from the iteration plan so that results and metrics can name CPU uses
// without the plan's graph and routing headers.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace dpusim::plan {

enum class CpuUse : std::size_t { transport, storage, encryption, vswitch, agents, data_loading, framework };
inline constexpr std::size_t kCpuUses = 7;
static_assert(static_cast<std::size_t>(CpuUse::framework) + 1 == kCpuUses, "kCpuUses counts every CpuUse");
std::string_view cpu_use_name(CpuUse u);
using CpuUseSeconds = std::array<double, kCpuUses>;

} // namespace dpusim::plan
