#include "hw_calib/probes/os_noise_probe.hpp"

#include "hw_calib/common/deadline.hpp"
#include "hw_calib/fit/lognormal_fit.hpp"
#include "hw_calib/fit/sample_stats.hpp"
#include "hw_calib/measurement/param_builder.hpp"
#include "models/calibration/parameters.hpp"
#include "models/calibration/plausibility.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>
#include <thread>
#include <vector>

namespace dpusim::calib {
namespace {

constexpr double kQuantumS = calibration::kOsNoiseQuantumS;
constexpr std::size_t kMaxStoredPerCpu = 10000;

// The fixed work: a dependent chain of multiply-adds the compiler cannot shorten.
[[gnu::noinline]] std::uint64_t work(std::uint64_t iterations, std::uint64_t seed) {
  std::uint64_t x = seed;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
  }
  return x;
}

double time_work(std::uint64_t iterations) {
  const auto t0 = Clock::now();
  (void)work(iterations, 1);
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Iterations whose fastest run takes about kQuantumS.
std::uint64_t calibrate() {
  std::uint64_t n = 1000;
  while (time_work(n) < kQuantumS / 4 && n < (1ull << 40))
    n *= 2;
  double best = 1e9;
  for (int i = 0; i < 50; ++i)
    best = std::min(best, time_work(n));
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(n) * kQuantumS / best));
}

void pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set))
        cpus.push_back(c);
    }
  }
  if (cpus.empty())
    cpus.push_back(0);
  return cpus;
}

} // namespace

ProbeResult run_os_noise_probe(const ProbeContext& ctx) {
  ProbeResult result;
  const std::uint64_t iterations = calibrate();
  const std::vector<int> cpus = allowed_cpus();
  const double duration = ctx.settings().duration_s;
  const auto capacity = static_cast<std::size_t>(duration / kQuantumS * 1.5) + 16;
  std::vector<std::vector<double>> quanta(cpus.size());
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < cpus.size(); ++k) {
    threads.emplace_back([&, k] {
      pin_to_cpu(cpus[k]);
      auto& out = quanta[k];
      out.reserve(capacity);
      const auto end = deadline_in(duration);
      std::uint64_t seed = k + 1;
      while (!stop.load(std::memory_order_relaxed) && out.size() < capacity) {
        const auto t0 = Clock::now();
        seed = work(iterations, seed);
        const auto t1 = Clock::now();
        out.push_back(std::chrono::duration<double>(t1 - t0).count());
        if (t1 >= end)
          break;
      }
    });
  }
  // The main thread watches for interruption and the time limit while the workers run.
  std::exception_ptr failure;
  const auto end = deadline_in(duration);
  while (Clock::now() < end) {
    try {
      ctx.check();
    } catch (...) {
      failure = std::current_exception();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop = true;
  for (auto& t : threads)
    t.join();
  if (failure)
    std::rethrow_exception(failure);

  std::vector<double> all_detours, fractions;
  // The same fraction over each half of every CPU's quanta: a repetition within the run.
  double half_total[2] = {0, 0}, half_lost[2] = {0, 0};
  double quantum_sum = 0;
  std::size_t quantum_count = 0;
  for (std::size_t k = 0; k < cpus.size(); ++k) {
    const auto& q = quanta[k];
    if (q.size() < 10)
      continue;
    const double t_min = *std::min_element(q.begin(), q.end());
    double total = 0, lost = 0;
    const std::size_t stride = std::max<std::size_t>(1, q.size() / kMaxStoredPerCpu);
    for (std::size_t i = 0; i < q.size(); ++i) {
      total += q[i];
      lost += q[i] - t_min;
      const int half = 2 * i < q.size() ? 0 : 1;
      half_total[half] += q[i];
      half_lost[half] += q[i] - t_min;
      all_detours.push_back(q[i] - t_min);
      if (i % stride == 0)
        result.samples.add(fmt::format("fwq_cpu{}", cpus[k]), static_cast<long long>(i), 0, "quantum_s",
                           q[i]);
    }
    fractions.push_back(lost / total);
    quantum_sum += t_min;
    ++quantum_count;
    const SampleSummary d = summarize(q);
    result.summary.push_back(fmt::format("CPU {:>3}: {} quanta, min {:.1f} us, p99 {:.1f} us, max {:.1f} us, "
                                         "lost {:.3f} %",
                                         cpus[k], q.size(), t_min * 1e6, d.p99 * 1e6, d.max * 1e6,
                                         100.0 * lost / total));
  }
  if (fractions.empty())
    throw std::runtime_error("os-noise: no CPU completed enough quanta");
  double fraction = 0;
  for (double f : fractions)
    fraction += f;
  fraction /= static_cast<double>(fractions.size());
  const SampleSummary detour = summarize(all_detours);
  if (half_total[0] > 0 && half_total[1] > 0) {
    const double first = half_lost[0] / half_total[0];
    const double second = half_lost[1] / half_total[1];
    // Half a percentage point: the spread of the clock tick's cost itself (TSAFRIR05: 0.5-1.5%).
    if (calibration::unstable_halves(first, second, 0.005))
      result.warnings.push_back(fmt::format(
          "the OS noise is unstable across the probe's two halves ({:.2f}% then {:.2f}% of each quantum "
          "lost): the load on the machine changed while it ran; measure again on an idle node",
          100 * first, 100 * second));
  }
  if (all_detours.size() > cpus.size() * kMaxStoredPerCpu)
    result.notes.push_back(
        fmt::format("raw samples thinned to at most {} per CPU (every n-th quantum)", kMaxStoredPerCpu));
  std::optional<calibration::FitQuality> fit;
  try {
    const LognormalFit ln = fit_lognormal(all_detours);
    fit = fit_quality(ln);
    result.summary.push_back(
        fmt::format("detours: lognormal median {:.2f} us, sigma {:.2f}, KS D {:.3f} ({} positive)",
                    ln.median() * 1e6, ln.sigma, ln.ks_statistic, ln.samples));
  } catch (const std::invalid_argument& e) {
    result.notes.push_back(fmt::format("lognormal fit of the detours not possible: {}", e.what()));
  }
  result.summary.push_back(
      fmt::format("OS noise: {:.3f} % of each {:.0f} us quantum lost on average; detour p99 "
                  "{:.2f} us, p99.9 {:.2f} us, max {:.1f} us",
                  fraction * 100, quantum_sum / static_cast<double>(quantum_count) * 1e6, detour.p99 * 1e6,
                  detour.p999 * 1e6, detour.max * 1e6));
  const std::string source =
      fmt::format("fixed-work-quantum benchmark: {} CPUs pinned, {:.0f} us quanta, {:.1f} s",
                  fractions.size(), kQuantumS * 1e6, duration);
  add_param(result, "os-noise",
            ParamSpec{role_key(ctx.role(), "os_noise_fraction"), fraction, calibration::Provenance::measured,
                      source, "fwq_cpu*", std::nullopt,
                      "mean over CPUs of (sum of detours) / (sum of quantum times)"});
  add_param(result, "os-noise",
            ParamSpec{role_key(ctx.role(), "os_noise_p99"), std::max(detour.p99, 1e-9),
                      calibration::Provenance::measured, source, "fwq_cpu*", fit,
                      "99th percentile of quantum time minus the fastest quantum, all CPUs pooled"});
  return result;
}

} // namespace dpusim::calib
