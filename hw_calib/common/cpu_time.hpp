// CPU time as the probes account it: per thread with getrusage(RUSAGE_THREAD) (what one core spent on
// the work, user and kernel), and system-wide from /proc/stat (which also sees softirq time spent on
// other cores, e.g. the receive path of the network stack).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace dpusim::calib {

struct CpuTimes {
  double user_s = 0;
  double system_s = 0;
  [[nodiscard]] double total_s() const { return user_s + system_s; }
  friend CpuTimes operator-(const CpuTimes& a, const CpuTimes& b) {
    return {a.user_s - b.user_s, a.system_s - b.system_s};
  }
};

/// CPU time of the calling thread.
CpuTimes thread_cpu_times();
/// CPU time of the whole process (all threads, including reaped children).
CpuTimes process_cpu_times();

/// The aggregate "cpu" line of /proc/stat, in seconds.
struct SystemCpuTimes {
  double user_s = 0, nice_s = 0, system_s = 0, idle_s = 0, iowait_s = 0, irq_s = 0, softirq_s = 0,
         steal_s = 0;
  [[nodiscard]] double busy_s() const { return user_s + nice_s + system_s + irq_s + softirq_s; }
  friend SystemCpuTimes operator-(const SystemCpuTimes& a, const SystemCpuTimes& b);
};

/// Reads /proc/stat (or the given file); nullopt when it is not readable or not in the Linux format.
std::optional<SystemCpuTimes> read_system_cpu_times(const std::filesystem::path& proc_stat = "/proc/stat");
/// Parses the text of /proc/stat with the given clock-tick rate.
std::optional<SystemCpuTimes> parse_proc_stat(const std::string& text, double ticks_per_second);

} // namespace dpusim::calib
