#include "sim/cli/stack_limit.hpp"

#include <algorithm>
#include <sys/resource.h>

namespace dpusim::cli {

std::size_t raise_stack_limit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_STACK, &r) != 0)
    return 0;
  if (r.rlim_cur == RLIM_INFINITY)
    return 0;
  if (r.rlim_cur < kSimulationStack) {
    const rlim_t wanted =
        r.rlim_max == RLIM_INFINITY ? kSimulationStack : std::min<rlim_t>(kSimulationStack, r.rlim_max);
    if (wanted > r.rlim_cur) {
      rlimit raised = r;
      raised.rlim_cur = wanted;
      if (::setrlimit(RLIMIT_STACK, &raised) == 0)
        r = raised;
    }
  }
  return static_cast<std::size_t>(r.rlim_cur);
}

} // namespace dpusim::cli
