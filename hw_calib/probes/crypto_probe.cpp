#include "hw_calib/probes/crypto_probe.hpp"

#include "hw_calib/common/cpu_time.hpp"
#include "hw_calib/common/deadline.hpp"
#include "hw_calib/fit/alpha_beta_fit.hpp"
#include "hw_calib/measurement/param_builder.hpp"
#include "models/base/unit_parse.hpp"

#include <array>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdexcept>
#include <vector>

namespace dpusim::calib {
namespace {

struct CipherCtxDeleter {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};

struct Window {
  double bytes = 0;
  double cpu_s = 0;
  double wall_s = 0;
  double buffers = 0;
};

// Encrypts buffers of `size` bytes (fresh IV per buffer, tag computed) for `budget_s`, in windows.
std::vector<Window> encrypt_for(const ProbeContext& ctx, std::size_t size, double budget_s) {
  std::unique_ptr<EVP_CIPHER_CTX, CipherCtxDeleter> c(EVP_CIPHER_CTX_new());
  if (!c)
    throw std::runtime_error("OpenSSL: EVP_CIPHER_CTX_new failed");
  std::array<unsigned char, 32> key{};
  std::array<unsigned char, 12> iv{};
  for (std::size_t i = 0; i < key.size(); ++i)
    key[i] = static_cast<unsigned char>(i * 7 + 1);
  if (EVP_EncryptInit_ex(c.get(), EVP_aes_256_gcm(), nullptr, key.data(), iv.data()) != 1)
    throw std::runtime_error("OpenSSL: AES-256-GCM is not available");
  std::vector<unsigned char> in(size, 0xa5), out(size + 32);
  std::array<unsigned char, 16> tag{};
  const int n = static_cast<int>(size);
  auto one = [&](std::uint64_t counter) {
    std::memcpy(iv.data(), &counter, sizeof counter);
    int len = 0, fin = 0;
    if (EVP_EncryptInit_ex(c.get(), nullptr, nullptr, nullptr, iv.data()) != 1 ||
        EVP_EncryptUpdate(c.get(), out.data(), &len, in.data(), n) != 1 ||
        EVP_EncryptFinal_ex(c.get(), out.data() + len, &fin) != 1 ||
        EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(tag.size()), tag.data()) != 1)
      throw std::runtime_error("OpenSSL: AES-256-GCM encryption failed");
  };
  std::uint64_t counter = 0;
  for (int i = 0; i < 16; ++i)
    one(counter++); // warm-up
  const double window_s = std::max(0.01, budget_s / 10.0);
  std::vector<Window> windows;
  const auto end = deadline_in(budget_s);
  do {
    ctx.check();
    Window w;
    const CpuTimes cpu0 = thread_cpu_times();
    const auto t0 = Clock::now();
    const auto wend = t0 + seconds_duration(window_s);
    std::uint64_t count = 0;
    do {
      for (int k = 0; k < 64; ++k)
        one(counter++);
      count += 64;
    } while (Clock::now() < wend);
    w.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    w.cpu_s = (thread_cpu_times() - cpu0).total_s();
    w.buffers = static_cast<double>(count);
    w.bytes = static_cast<double>(count) * static_cast<double>(size);
    windows.push_back(w);
  } while (Clock::now() < end);
  return windows;
}

} // namespace

ProbeResult run_crypto_probe(const ProbeContext& ctx) {
  ProbeResult result;
  result.tools["openssl"] = OpenSSL_version(OPENSSL_VERSION);
  constexpr std::array<std::size_t, 5> kSizes{16, 256, 1024, 16384, 65536};
  constexpr std::size_t kReference = 16384; // the size public per-core figures are quoted at
  const double slice = ctx.settings().duration_s / static_cast<double>(kSizes.size());
  std::vector<double> fit_sizes, fit_times;
  double reference_rate = 0, reference_bytes = 0;
  int reference_windows = 0;
  for (const auto size : kSizes) {
    const auto windows = encrypt_for(ctx, size, slice);
    double bytes = 0, cpu = 0, wall = 0, buffers = 0;
    for (std::size_t i = 0; i < windows.size(); ++i) {
      const auto& w = windows[i];
      result.samples.add("aes_256_gcm", static_cast<long long>(i), static_cast<double>(size), "bytes",
                         w.bytes);
      result.samples.add("aes_256_gcm", static_cast<long long>(i), static_cast<double>(size), "cpu_s",
                         w.cpu_s);
      result.samples.add("aes_256_gcm", static_cast<long long>(i), static_cast<double>(size), "wall_s",
                         w.wall_s);
      bytes += w.bytes;
      cpu += w.cpu_s;
      wall += w.wall_s;
      buffers += w.buffers;
    }
    // CPU time when the thread accounting resolved it, wall time otherwise (one busy thread: the same).
    const double busy = cpu > 0.5 * wall ? cpu : wall;
    const double rate = bytes / busy;
    fit_sizes.push_back(static_cast<double>(size));
    fit_times.push_back(busy / buffers);
    result.summary.push_back(fmt::format("AES-256-GCM {:>6} B buffers: {:.2f} GB/s per core ({})", size,
                                         rate / 1e9, units::format(units::DataRate::from_si(rate))));
    if (size == kReference) {
      reference_rate = rate;
      reference_bytes = bytes;
      reference_windows = static_cast<int>(windows.size());
    }
  }
  std::optional<calibration::FitQuality> fit;
  try {
    const AlphaBetaFit ab = fit_alpha_beta(fit_sizes, fit_times);
    fit = fit_quality(ab);
    result.summary.push_back(
        fmt::format("  per-buffer cost fit: {:.0f} ns + bytes / {:.2f} GB/s (R2 {:.3f}); "
                    "half the peak rate at {:.0f} B buffers",
                    ab.alpha_s * 1e9, ab.beta_Bps / 1e9, ab.r2, ab.n_half_bytes()));
  } catch (const std::invalid_argument& e) {
    result.notes.push_back(fmt::format("per-buffer cost fit not possible: {}", e.what()));
  }
  result.summary.push_back(
      fmt::format("  cores to encrypt 400 Gb/s (50 GB/s) in one direction: {:.1f}", 50e9 / reference_rate));
  add_param(
      result, "crypto",
      ParamSpec{role_key(ctx.role(), "aes_gcm_rate_per_core"), reference_rate,
                calibration::Provenance::measured,
                fmt::format("OpenSSL EVP AES-256-GCM, 16 KiB buffers, one thread, {:.3g} GB over {} windows "
                            "(bytes / thread CPU time); fit: per-buffer cost over 16 B..64 KiB",
                            reference_bytes / 1e9, reference_windows),
                "aes_256_gcm", fit,
                ctx.machine().measured_core_clock_hz
                    ? fmt::format("{:.3g} cycles/byte at the measured {:.2f} GHz",
                                  *ctx.machine().measured_core_clock_hz / reference_rate,
                                  *ctx.machine().measured_core_clock_hz / 1e9)
                    : std::string()});
  return result;
}

} // namespace dpusim::calib
