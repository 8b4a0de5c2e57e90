// The stack a simulation needs. SimGrid's solver walks the constraints an ended activity touches
// recursively (lmm::System::update_modified_cnst_set_rec), one frame per constraint: on about 100k GPUs
// in NVLink racks that walk is deeper than the usual 8 MiB stack holds (tools/scale-benchmark.sh).
#pragma once

#include <cstddef>

namespace dpusim::cli {

/// Below the 128 MiB the kernel always leaves free under the main thread's stack when the limit at exec
/// was smaller, so growing the stack to it never meets another mapping.
inline constexpr std::size_t kSimulationStack = std::size_t{112} << 20;

/// Raises this process's soft stack limit to kSimulationStack (or the hard limit, if lower) where it is
/// lower; children inherit it. Returns the soft limit in force afterwards (0: unlimited).
std::size_t raise_stack_limit();

} // namespace dpusim::cli
