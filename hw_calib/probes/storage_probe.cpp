#include "hw_calib/probes/storage_probe.hpp"

#include "hw_calib/common/cpu_time.hpp"
#include "hw_calib/common/deadline.hpp"
#include "hw_calib/common/process_runner.hpp"
#include "hw_calib/common/temp_file.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/common/unique_fd.hpp"
#include "hw_calib/fit/sample_stats.hpp"
#include "hw_calib/measurement/param_builder.hpp"
#include "hw_calib/parsers/fio_parser.hpp"
#include "hw_calib/parsers/parse_error.hpp"
#include "models/base/atomic_file.hpp"
#include "models/base/unit_parse.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <memory>
#include <random>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace dpusim::calib {
namespace {

namespace fs = std::filesystem;
constexpr std::size_t kSeqBlock = 1u << 20;
constexpr std::size_t kRandBlock = 4096;

struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<unsigned char, AlignedFree>;

AlignedBuffer aligned(std::size_t bytes) {
  void* p = nullptr;
  if (::posix_memalign(&p, 4096, bytes) != 0)
    throw std::bad_alloc();
  std::memset(p, 0x3c, bytes);
  return AlignedBuffer(static_cast<unsigned char*>(p));
}

struct ReadTarget {
  fs::path path;
  double size_bytes = 0;
  std::unique_ptr<TempFile> temp; // set when the probe created the file
  std::string description;
};

// Creates and fills the probe's own temporary file; returns the write rate as extra information.
ReadTarget create_target(const ProbeContext& ctx, ProbeResult& result) {
  const auto& s = ctx.settings();
  ReadTarget t;
  const fs::path dir = storage_directory(s);
  // A run killed with SIGKILL cannot remove its file; the next one does (only if its process is gone).
  for (const auto& stale : remove_stale_temporaries(dir))
    result.summary.push_back(
        fmt::format("removed {}, a temporary file left by an earlier run", stale.string()));
  if (const auto problem = storage_space_problem(s.storage_size_bytes, dir))
    throw std::runtime_error("storage: " + *problem);
  t.temp = std::make_unique<TempFile>(dir, "dpusim-calib-storage");
  t.path = t.temp->path();
  const auto blocks = std::max<std::size_t>(4, static_cast<std::size_t>(s.storage_size_bytes) / kSeqBlock);
  t.size_bytes = static_cast<double>(blocks * kSeqBlock);
  const AlignedBuffer buf = aligned(kSeqBlock);
  std::mt19937_64 rng(12345);
  const auto t0 = Clock::now();
  for (std::size_t b = 0; b < blocks; ++b) {
    if (b % 16 == 0)
      ctx.check();
    // Vary the content a little so that compressing or deduplicating storage does not shortcut reads.
    for (std::size_t i = 0; i < kSeqBlock; i += 4096)
      buf.get()[i] = static_cast<unsigned char>(rng());
    std::size_t done = 0;
    while (done < kSeqBlock) {
      const ssize_t n = ::write(t.temp->fd(), buf.get() + done, kSeqBlock - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        throw std::runtime_error(fmt::format("storage: writing the temporary file {} failed: {}",
                                             t.path.string(), std::strerror(errno)));
      done += static_cast<std::size_t>(n);
    }
  }
  if (::fsync(t.temp->fd()) != 0)
    throw std::runtime_error(
        fmt::format("storage: fsync of {} failed: {}", t.path.string(), std::strerror(errno)));
  const double write_s = std::chrono::duration<double>(Clock::now() - t0).count();
  result.summary.push_back(fmt::format("created {} temporary file {} (written at {:.2f} GB/s incl. fsync)",
                                       units::format(units::Bytes::from_si(t.size_bytes)), t.path.string(),
                                       t.size_bytes / write_s / 1e9));
  t.description = fmt::format("a {} temporary file in {}", units::format(units::Bytes::from_si(t.size_bytes)),
                              dir.string());
  return t;
}

ReadTarget existing_target(const fs::path& path) {
  ReadTarget t;
  t.path = path;
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    throw std::runtime_error(
        fmt::format("storage: cannot open {} for reading: {}", path.string(), std::strerror(errno)));
  const off_t end = ::lseek(fd.get(), 0, SEEK_END);
  if (end < static_cast<off_t>(kSeqBlock))
    throw std::runtime_error(fmt::format("storage: {} is smaller than 1 MiB", path.string()));
  t.size_bytes = static_cast<double>(end);
  t.description = fmt::format("{} (read only)", path.string());
  return t;
}

struct ReadRun {
  double bytes = 0;
  double wall_s = 0;
  double cpu_s = 0;
  std::vector<double> latencies_s;
};

// Opens for reading with O_DIRECT when the file system allows it; otherwise buffered, with the pages
// dropped first, and a note.
int open_for_reads(const fs::path& path, bool& direct) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  direct = fd >= 0;
  if (fd < 0 && errno == EINVAL) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0)
      ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  }
  if (fd < 0)
    throw std::runtime_error(fmt::format("storage: cannot open {}: {}", path.string(), std::strerror(errno)));
  return fd;
}

ReadRun read_loop(const ProbeContext& ctx, int fd, double size_bytes, bool sequential, double budget_s) {
  const std::size_t block = sequential ? kSeqBlock : kRandBlock;
  const AlignedBuffer buf = aligned(block);
  const auto blocks = static_cast<std::uint64_t>(size_bytes / static_cast<double>(block));
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<std::uint64_t> pick(0, blocks - 1);
  ReadRun run;
  const CpuTimes cpu0 = thread_cpu_times();
  const auto t0 = Clock::now();
  const auto end = t0 + seconds_duration(budget_s);
  std::uint64_t next = 0;
  std::uint64_t count = 0;
  while (true) {
    if (count % 64 == 0) {
      ctx.check();
      if (Clock::now() >= end && count > 0)
        break;
    }
    const std::uint64_t index = sequential ? next++ % blocks : pick(rng);
    const auto r0 = Clock::now();
    const ssize_t n = ::pread(fd, buf.get(), block, static_cast<off_t>(index * block));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      throw std::runtime_error(
          fmt::format("storage: read failed: {}", n < 0 ? std::strerror(errno) : "end of file"));
    if (!sequential)
      run.latencies_s.push_back(std::chrono::duration<double>(Clock::now() - r0).count());
    run.bytes += static_cast<double>(n);
    ++count;
  }
  run.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  run.cpu_s = (thread_cpu_times() - cpu0).total_s();
  return run;
}

struct StorageFigures {
  double seq_bw = 0, seq_cpu_s = 0, seq_bytes = 0;
  double rand_iops = 0;
  std::optional<double> rand_p50_s, rand_p99_s;
  std::string method;
};

StorageFigures builtin_reads(const ProbeContext& ctx, const ReadTarget& target, ProbeResult& result) {
  bool direct = false;
  const UniqueFd fd(open_for_reads(target.path, direct));
  if (!direct)
    result.notes.push_back(
        fmt::format("the file system of {} does not support O_DIRECT: buffered reads after "
                    "dropping the file's cached pages; the page cache may still serve some reads",
                    target.path.string()));
  const double budget = ctx.settings().duration_s / 2;
  const ReadRun seq = read_loop(ctx, fd.get(), target.size_bytes, true, budget);
  const ReadRun rnd = read_loop(ctx, fd.get(), target.size_bytes, false, budget);
  result.samples.add("seq_read_1m", 0, static_cast<double>(kSeqBlock), "bytes", seq.bytes);
  result.samples.add("seq_read_1m", 0, static_cast<double>(kSeqBlock), "wall_s", seq.wall_s);
  result.samples.add("seq_read_1m", 0, static_cast<double>(kSeqBlock), "cpu_s", seq.cpu_s);
  for (std::size_t i = 0; i < rnd.latencies_s.size();
       i += std::max<std::size_t>(1, rnd.latencies_s.size() / 20000))
    result.samples.add("rand_read_4k", static_cast<long long>(i), kRandBlock, "latency_s",
                       rnd.latencies_s[i]);
  StorageFigures f;
  f.seq_bytes = seq.bytes;
  f.seq_bw = seq.bytes / seq.wall_s;
  f.seq_cpu_s = seq.cpu_s;
  f.rand_iops = static_cast<double>(rnd.latencies_s.size()) / rnd.wall_s;
  if (!rnd.latencies_s.empty()) {
    f.rand_p50_s = quantile(rnd.latencies_s, 0.5);
    f.rand_p99_s = quantile(rnd.latencies_s, 0.99);
  }
  f.method = fmt::format("built-in reader, {}pread, one thread, queue depth 1, on {}",
                         direct ? "O_DIRECT " : "buffered ", target.description);
  return f;
}

// fio splits --filename on ':' (several files); a literal colon is escaped with a backslash.
std::string fio_filename(const fs::path& path) {
  std::string out;
  for (const char c : path.string()) {
    if (c == ':')
      out += '\\';
    out += c;
  }
  return out;
}

FioJob run_fio(const ProbeContext& ctx, const ReadTarget& target, bool sequential, bool direct,
               ProbeResult& result) {
  const int runtime = std::max(1, static_cast<int>(ctx.settings().duration_s / 2));
  std::vector<std::string> argv{"fio",
                                sequential ? "--name=dpusim-seqread" : "--name=dpusim-randread",
                                "--filename=" + fio_filename(target.path),
                                "--readonly",
                                "--thread", // one process, which dies with dpusim-calib (no job forks)
                                sequential ? "--rw=read" : "--rw=randread",
                                sequential ? "--bs=1M" : "--bs=4k",
                                direct ? "--direct=1" : "--direct=0",
                                "--ioengine=psync",
                                fmt::format("--size={}", static_cast<long long>(target.size_bytes)),
                                fmt::format("--runtime={}", runtime),
                                "--time_based",
                                "--randseed=1",
                                "--output-format=json"};
  ProcessOptions po;
  po.timeout = std::chrono::seconds(
      static_cast<long long>(std::max(10.0, std::min(ctx.time_left_s(), runtime + 60.0))));
  const ProcessResult r = run_process(argv, po);
  ctx.check();
  if (!r.ok())
    throw std::runtime_error(fmt::format("fio {}: {}", r.describe(), std::string(trim(r.err))));
  const FioReport report = parse_fio_json(r.out);
  result.tools["fio"] = report.version;
  if (report.jobs.front().error != 0)
    throw std::runtime_error(
        fmt::format("fio reported error {} for {}", report.jobs.front().error, target.path.string()));
  return report.jobs.front();
}

StorageFigures fio_reads(const ProbeContext& ctx, const ReadTarget& target, ProbeResult& result) {
  bool direct = true;
  FioJob seq;
  try {
    seq = run_fio(ctx, target, true, true, result);
  } catch (const std::runtime_error& e) {
    direct = false;
    result.notes.push_back(
        fmt::format("fio with --direct=1 failed ({}); repeated with buffered reads", e.what()));
    seq = run_fio(ctx, target, true, false, result);
  }
  const FioJob rnd = run_fio(ctx, target, false, direct, result);
  auto add_job = [&](const char* series, const FioJob& j, double bs) {
    result.samples.add(series, 0, bs, "bytes", j.read.io_bytes);
    result.samples.add(series, 0, bs, "runtime_s", j.read.runtime_s);
    result.samples.add(series, 0, bs, "bw_bytes_per_s", j.read.bw_Bps);
    result.samples.add(series, 0, bs, "iops", j.read.iops);
    result.samples.add(series, 0, bs, "usr_cpu_percent", j.usr_cpu_percent);
    result.samples.add(series, 0, bs, "sys_cpu_percent", j.sys_cpu_percent);
    long long i = 0;
    for (const auto& [p, v] : j.read.clat_percentiles_s)
      result.samples.add(series, i++, bs, fmt::format("clat_p{}_s", p), v);
  };
  add_job("fio_seq_read_1m", seq, kSeqBlock);
  add_job("fio_rand_read_4k", rnd, kRandBlock);
  StorageFigures f;
  f.seq_bw = seq.read.bw_Bps;
  f.seq_bytes = seq.read.io_bytes;
  f.seq_cpu_s = (seq.usr_cpu_percent + seq.sys_cpu_percent) / 100.0 * seq.read.runtime_s;
  f.rand_iops = rnd.read.iops;
  if (rnd.read.clat_percentiles_s.contains(50.0))
    f.rand_p50_s = rnd.read.clat_percentiles_s.at(50.0);
  if (rnd.read.clat_percentiles_s.contains(99.0))
    f.rand_p99_s = rnd.read.clat_percentiles_s.at(99.0);
  f.method = fmt::format("{}, psync, one job, queue depth 1, {} on {}", result.tools["fio"],
                         direct ? "--direct=1" : "buffered", target.description);
  return f;
}

} // namespace

fs::path storage_directory(const ProbeSettings& settings) {
  return settings.storage_dir.empty() ? fs::path("/var/tmp") : settings.storage_dir;
}

std::optional<std::string> storage_size_problem(double size_bytes, double available_bytes,
                                                const std::string& where) {
  auto size = [](double bytes) {
    constexpr double GiB = 1024.0 * 1024 * 1024;
    return bytes >= GiB ? fmt::format("{:.1f} GiB", bytes / GiB)
                        : fmt::format("{:.0f} MiB", bytes / GiB * 1024);
  };
  if (size_bytes > kMaxStorageSizeBytes)
    return fmt::format("--storage-size {}: at most {}", size(size_bytes), size(kMaxStorageSizeBytes));
  const double margin = std::max(kMinStorageMarginBytes, size_bytes * kStorageMarginFraction);
  if (available_bytes < size_bytes + margin)
    return fmt::format("--storage-size {}: {} has only {} free for this user, and the probe needs the file "
                       "and {} to spare (choose a smaller --storage-size or another --storage-dir)",
                       size(size_bytes), where, size(available_bytes), size(margin));
  return std::nullopt;
}

std::optional<std::string> storage_space_problem(double size_bytes, const fs::path& dir) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0)
    return fmt::format("--storage-dir {}: cannot read its free space: {}", dir.string(),
                       std::strerror(errno));
  const double available = static_cast<double>(st.f_bavail) * static_cast<double>(st.f_frsize);
  return storage_size_problem(size_bytes, available, dir.string());
}

ProbeResult run_storage_probe(const ProbeContext& ctx) {
  ProbeResult result;
  const auto& s = ctx.settings();
  if (s.storage_tool != "auto" && s.storage_tool != "builtin" && s.storage_tool != "fio")
    throw std::invalid_argument(
        fmt::format("--storage-tool \"{}\": valid are auto, builtin, fio", s.storage_tool));
  const bool have_fio = find_executable("fio").has_value();
  if (s.storage_tool == "fio" && !have_fio)
    return skipped("--storage-tool fio was asked for but fio is not installed (apt-get install fio)");
  const bool use_fio = s.storage_tool == "fio" || (s.storage_tool == "auto" && have_fio);
  const ReadTarget target = s.storage_file ? existing_target(*s.storage_file) : create_target(ctx, result);
  const StorageFigures f = use_fio ? fio_reads(ctx, target, result) : builtin_reads(ctx, target, result);
  const std::string series_seq = use_fio ? "fio_seq_read_1m" : "seq_read_1m";
  const std::string series_rand = use_fio ? "fio_rand_read_4k" : "rand_read_4k";
  result.summary.push_back(fmt::format("sequential 1 MiB reads: {:.2f} GB/s ({})", f.seq_bw / 1e9,
                                       units::format(units::DataRate::from_si(f.seq_bw))));
  result.summary.push_back(fmt::format(
      "random 4 KiB reads: {:.0f} IOPS ({:.1f} MB/s){}", f.rand_iops, f.rand_iops * kRandBlock / 1e6,
      f.rand_p50_s && f.rand_p99_s
          ? fmt::format(", latency p50 {:.1f} us, p99 {:.1f} us", *f.rand_p50_s * 1e6, *f.rand_p99_s * 1e6)
          : std::string()));
  add_param(result, "storage",
            ParamSpec{"storage.read_bandwidth", f.seq_bw, calibration::Provenance::measured, f.method,
                      series_seq, std::nullopt, "sequential 1 MiB reads"});
  add_param(result, "storage",
            ParamSpec{"storage.random_read_iops", f.rand_iops, calibration::Provenance::measured, f.method,
                      series_rand, std::nullopt, "random 4 KiB reads, queue depth 1"});
  if (f.rand_p50_s && f.rand_p99_s && *f.rand_p50_s > 0) {
    add_param(result, "storage",
              ParamSpec{"storage.read_latency_median", *f.rand_p50_s, calibration::Provenance::measured,
                        f.method, series_rand, std::nullopt,
                        "median completion latency of random 4 KiB reads, queue depth 1"});
    add_param(result, "storage",
              ParamSpec{"storage.read_latency_p99", std::max(*f.rand_p99_s, *f.rand_p50_s),
                        calibration::Provenance::measured, f.method, series_rand, std::nullopt,
                        "99th percentile of the same reads' completion latency"});
  }
  if (f.seq_cpu_s > 0) {
    const double per_core = f.seq_bytes / f.seq_cpu_s;
    result.summary.push_back(
        fmt::format("CPU cost of sequential reads: {:.3f} core-seconds per GB ({:.1f} GB/s per core)",
                    f.seq_cpu_s / (f.seq_bytes / 1e9), per_core / 1e9));
    add_param(result, "storage",
              ParamSpec{"storage.read_rate_per_core", per_core, calibration::Provenance::measured, f.method,
                        series_seq, std::nullopt,
                        "bytes read per CPU-second of the reading thread (user + system)"});
  } else {
    result.notes.push_back("storage: the reading thread's CPU time was below the clock resolution; "
                           "storage.read_rate_per_core not recorded (run longer with --duration)");
  }
  return result;
}

} // namespace dpusim::calib
