#include "hw_calib/probes/memory_probe.hpp"

#include "hw_calib/common/deadline.hpp"
#include "hw_calib/fit/sample_stats.hpp"
#include "hw_calib/measurement/param_builder.hpp"
#include "models/base/unit_parse.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <vector>

namespace dpusim::calib {
namespace {

constexpr std::size_t kMaxStoredPerSize = 2000; // raw samples kept per buffer size (every n-th batch)

struct SizeResult {
  double bytes = 0;
  std::vector<double> seconds; // per copy
};

SizeResult measure(const ProbeContext& ctx, std::size_t bytes, double budget_s) {
  // Page-aligned buffers, touched before timing so that page faults are not measured.
  std::unique_ptr<unsigned char[]> src(new unsigned char[bytes + 4096]);
  std::unique_ptr<unsigned char[]> dst(new unsigned char[bytes + 4096]);
  std::memset(src.get(), 0x5a, bytes + 4096);
  std::memset(dst.get(), 0, bytes + 4096);
  SizeResult r;
  r.bytes = static_cast<double>(bytes);
  std::memcpy(dst.get(), src.get(), bytes); // warm-up
  const auto end = deadline_in(budget_s);
  // Time batches of copies so that each sample is well above the clock resolution.
  const std::size_t batch = std::max<std::size_t>(1, (1u << 22) / std::max<std::size_t>(bytes, 1));
  unsigned sink = 0;
  do {
    ctx.check();
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < batch; ++i) {
      std::memcpy(dst.get(), src.get() + (i & 1), bytes);
      sink += dst[i % bytes];
    }
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    r.seconds.push_back(s / static_cast<double>(batch));
  } while (Clock::now() < end || r.seconds.size() < 3);
  if (sink == 1) // keeps the copies observable
    r.seconds.push_back(r.seconds.back());
  return r;
}

} // namespace

ProbeResult run_memory_probe(const ProbeContext& ctx) {
  ProbeResult result;
  const auto& s = ctx.settings();
  std::vector<std::size_t> sizes{64u << 10, 1u << 20, 16u << 20};
  const auto max_bytes = static_cast<std::size_t>(std::max(s.memcpy_max_bytes, 64.0 * 1024 * 1024));
  sizes.push_back(max_bytes);
  const double slice = s.duration_s / static_cast<double>(sizes.size());
  double largest_bw = 0;
  std::vector<double> largest_samples;
  for (const auto size : sizes) {
    const SizeResult r = measure(ctx, size, slice);
    std::vector<double> bw;
    const std::size_t stride = std::max<std::size_t>(1, r.seconds.size() / kMaxStoredPerSize);
    for (std::size_t i = 0; i < r.seconds.size(); ++i) {
      bw.push_back(r.bytes / r.seconds[i]);
      if (i % stride == 0)
        result.samples.add("memcpy", static_cast<long long>(i), r.bytes, "seconds", r.seconds[i]);
    }
    const double median_bw = quantile(bw, 0.5);
    result.summary.push_back(fmt::format(
        "memcpy {:>9}: {} ({:.2f} GB/s, {} samples)", units::format(units::Bytes::from_si(r.bytes)),
        units::format(units::DataRate::from_si(median_bw)), median_bw / 1e9, bw.size()));
    largest_bw = median_bw;
    largest_samples = bw;
  }
  add_param(result, "memory",
            ParamSpec{role_key(ctx.role(), "memcpy_bandwidth"), largest_bw, calibration::Provenance::measured,
                      fmt::format("single-thread memcpy of {} buffers, median of {} timed batches",
                                  units::format(units::Bytes::from_si(static_cast<double>(sizes.back()))),
                                  largest_samples.size()),
                      "memcpy", std::nullopt, ""});
  return result;
}

} // namespace dpusim::calib
