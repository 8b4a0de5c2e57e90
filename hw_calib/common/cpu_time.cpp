#include "hw_calib/common/cpu_time.hpp"

#include "hw_calib/common/text.hpp"

#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace dpusim::calib {
namespace {

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
}

CpuTimes usage(int who) {
  rusage ru{};
  if (::getrusage(who, &ru) != 0)
    return {};
  return {seconds(ru.ru_utime), seconds(ru.ru_stime)};
}

} // namespace

CpuTimes thread_cpu_times() {
  return usage(RUSAGE_THREAD);
}

CpuTimes process_cpu_times() {
  return usage(RUSAGE_SELF);
}

SystemCpuTimes operator-(const SystemCpuTimes& a, const SystemCpuTimes& b) {
  SystemCpuTimes d;
  d.user_s = a.user_s - b.user_s;
  d.nice_s = a.nice_s - b.nice_s;
  d.system_s = a.system_s - b.system_s;
  d.idle_s = a.idle_s - b.idle_s;
  d.iowait_s = a.iowait_s - b.iowait_s;
  d.irq_s = a.irq_s - b.irq_s;
  d.softirq_s = a.softirq_s - b.softirq_s;
  d.steal_s = a.steal_s - b.steal_s;
  return d;
}

std::optional<SystemCpuTimes> parse_proc_stat(const std::string& text, double ticks_per_second) {
  for (const auto line : split_lines(text)) {
    const auto fields = split_whitespace(line);
    if (fields.empty() || fields[0] != "cpu")
      continue;
    if (fields.size() < 8)
      return std::nullopt;
    double v[8] = {};
    for (std::size_t i = 0; i < 8; ++i) {
      const auto n = parse_number(i + 1 < fields.size() ? fields[i + 1] : std::string_view("0"));
      if (!n)
        return std::nullopt;
      v[i] = *n / ticks_per_second;
    }
    return SystemCpuTimes{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
  }
  return std::nullopt;
}

std::optional<SystemCpuTimes> read_system_cpu_times(const std::filesystem::path& proc_stat) {
  const auto text = read_text_file(proc_stat);
  if (!text)
    return std::nullopt;
  const long ticks = ::sysconf(_SC_CLK_TCK);
  return parse_proc_stat(*text, ticks > 0 ? static_cast<double>(ticks) : 100.0);
}

} // namespace dpusim::calib
