#include "hw_calib/ingest/ingest.hpp"

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/common/checksum.hpp"
#include "hw_calib/common/text.hpp"
#include "hw_calib/fit/alpha_beta_fit.hpp"
#include "hw_calib/ingest/format_readers.hpp"
#include "hw_calib/measurement/param_builder.hpp"
#include "hw_calib/parsers/device_tools_parser.hpp"
#include "hw_calib/parsers/ethtool_parser.hpp"
#include "hw_calib/parsers/fio_parser.hpp"
#include "hw_calib/parsers/iperf3_parser.hpp"
#include "hw_calib/parsers/lscpu_parser.hpp"
#include "hw_calib/parsers/nccl_tests_parser.hpp"
#include "hw_calib/parsers/nvidia_smi_parser.hpp"
#include "hw_calib/parsers/openssl_speed_parser.hpp"
#include "hw_calib/parsers/parse_error.hpp"
#include "hw_calib/parsers/perftest_parser.hpp"
#include "hw_calib/parsers/rdma_tools_parser.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace dpusim::calib {

void add_param_of_file(IngestedFile& f, const std::string& probe, ParamSpec spec) {
  const std::string key = spec.key;
  if (!add_param(f.result, probe, std::move(spec))) {
    // add_param recorded why in the notes; a value the registry refuses is a problem of the input.
    f.warnings.push_back(f.result.notes.empty() ? fmt::format("{} left out", key) : f.result.notes.back());
    if (!f.result.notes.empty())
      f.result.notes.pop_back();
  }
}

namespace {

// --- perftest ---------------------------------------------------------------------------------------

std::string perftest_verb(const Origin& o, const PerftestInfo& info) {
  if (starts_with(info.test, "RDMA_Write"))
    return "write";
  if (starts_with(info.test, "RDMA_Read"))
    return "read";
  if (starts_with(info.test, "Send"))
    return "send";
  if (info.test.empty())
    o.fail(0,
           "no test name line (e.g. \"RDMA_Write BW Test\") before the table: write, read and send cannot be "
           "told apart");
  return "atomic";
}

void ingest_perftest_bw(IngestedFile& f, const Origin& o, std::string_view text) {
  const auto report = parse_perftest_bw(text);
  const std::string verb = perftest_verb(o, report.info);
  double best = 0;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const auto& row = report.rows[i];
    f.result.samples.add(verb + "_bw", static_cast<long long>(i), row.bytes, "bw_average_bytes_per_s",
                         row.bw_average_Bps);
    f.result.samples.add(verb + "_bw", static_cast<long long>(i), row.bytes, "msg_rate_mpps",
                         row.msg_rate_mpps);
    best = std::max(best, row.bw_average_Bps);
  }
  if (!(best > 0))
    o.fail(0, "every row's average bandwidth is 0: expected a positive bandwidth");
  const std::string device = report.info.device.empty() ? "default device" : report.info.device;
  f.result.summary.push_back(fmt::format(
      "RDMA {} on {} ({}): {:.1f} Gb/s at best", verb, device,
      report.info.link_type.empty() ? "link type not printed" : report.info.link_type, best * 8 / 1e9));
  const char* key = verb == "write"  ? "nic.rdma_bandwidth"
                    : verb == "send" ? "nic.rdma_send_bandwidth"
                                     : nullptr;
  // `-b` runs both directions at once and prints their sum; a direction's share is not in the table.
  if (key != nullptr && report.info.test.find("Bidirectional") != std::string::npos) {
    f.warnings.push_back(fmt::format("{} left out: \"{}\" is a bidirectional run (-b), whose bandwidth is "
                                     "the sum of both directions; run it without -b for one direction's",
                                     key, report.info.test));
    return;
  }
  if (key == nullptr) {
    f.warnings.push_back(fmt::format("{}: no parameter is calibrated from RDMA {} (raw samples only)",
                                     report.info.test, verb));
    return;
  }
  add_param_of_file(f, "rdma",
                    ParamSpec{key, best, calibration::Provenance::measured,
                              o.cite(fmt::format("perftest ib_{}_bw on {}: best average bandwidth over sizes",
                                                 verb, device)),
                              verb + "_bw", std::nullopt, ""});
}

void ingest_perftest_lat(IngestedFile& f, const Origin& o, std::string_view text) {
  const auto report = parse_perftest_lat(text);
  const std::string verb = perftest_verb(o, report.info);
  std::vector<double> sizes, times;
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const auto& row = report.rows[i];
    if (!(row.t_typical_s > 0))
      o.fail(0, fmt::format("{} B: t_typical is {} us; expected a positive latency", row.bytes,
                            row.t_typical_s * 1e6));
    f.result.samples.add(verb + "_lat", static_cast<long long>(i), row.bytes, "t_typical_s", row.t_typical_s);
    if (row.p99_s)
      f.result.samples.add(verb + "_lat", static_cast<long long>(i), row.bytes, "t_p99_s", *row.p99_s);
    sizes.push_back(row.bytes);
    times.push_back(row.t_typical_s);
  }
  const std::string device = report.info.device.empty() ? "default device" : report.info.device;
  const char* key = verb == "write" ? "nic.rdma_latency" : verb == "send" ? "nic.rdma_send_latency" : nullptr;
  if (key == nullptr) {
    f.warnings.push_back(fmt::format("{}: no parameter is calibrated from RDMA {} (raw samples only)",
                                     report.info.test, verb));
    return;
  }
  const double smallest = *std::min_element(sizes.begin(), sizes.end());
  if (smallest > kRdmaSmallMessageBytes) {
    f.warnings.push_back(
        fmt::format("{} left out: the smallest message is {} B, above {} B: a latency needs small "
                    "messages (run with -a, or -s 2)",
                    key, smallest, kRdmaSmallMessageBytes));
    return;
  }
  f.result.summary.push_back(fmt::format("RDMA {} latency on {}: {:.2f} us at {} B", verb, device,
                                         times.front() * 1e6, sizes.front()));
  // The tail of the smallest message's latency (perftest prints its 99th percentile since 4.x).
  if (verb == "write") {
    const auto smallest_row =
        std::min_element(report.rows.begin(), report.rows.end(),
                         [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
    if (!smallest_row->p99_s)
      f.warnings.push_back("nic.rdma_latency_p99 left out: this perftest prints no 99% percentile column");
    else if (!(*smallest_row->p99_s >= smallest_row->t_typical_s))
      o.fail(0,
             fmt::format("{} B: the 99% percentile ({} us) is below t_typical ({} us); expected a tail "
                         "at or above the typical latency",
                         smallest_row->bytes, *smallest_row->p99_s * 1e6, smallest_row->t_typical_s * 1e6));
    else
      add_param_of_file(f, "rdma",
                        ParamSpec{"nic.rdma_latency_p99", *smallest_row->p99_s,
                                  calibration::Provenance::measured,
                                  o.cite(fmt::format("perftest ib_write_lat on {}: 99% percentile at {} B",
                                                     device, smallest_row->bytes)),
                                  "write_lat", std::nullopt, ""});
  }
  if (sizes.size() == 1) {
    add_param_of_file(f, "rdma",
                      ParamSpec{key, times.front(), calibration::Provenance::measured,
                                o.cite(fmt::format("perftest ib_{}_lat on {}: t_typical at {} B", verb,
                                                   device, sizes.front())),
                                verb + "_lat", std::nullopt, ""});
    return;
  }
  try {
    const AlphaBetaFit ab = fit_alpha_beta(sizes, times);
    if (!(ab.alpha_s > 0)) {
      f.warnings.push_back(
          fmt::format("{} left out: the fit's intercept is {:.3g} us, not a latency", key, ab.alpha_s * 1e6));
      return;
    }
    add_param_of_file(f, "rdma",
                      ParamSpec{key, ab.alpha_s, calibration::Provenance::fitted,
                                o.cite(fmt::format("perftest ib_{}_lat on {}: alpha of t_typical over sizes",
                                                   verb, device)),
                                verb + "_lat", fit_quality(ab), ""});
  } catch (const std::invalid_argument& e) {
    f.warnings.push_back(fmt::format("{} left out: {}", key, e.what()));
  }
}

// --- fio --------------------------------------------------------------------------------------------

// "1M", "4k", "1024KiB", "4096B" (fio's bs in job options or in its job line) -> bytes.
std::optional<double> block_size(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) != 0 || text[digits] == '.'))
    ++digits;
  const auto v = parse_number(text.substr(0, digits));
  if (!v)
    return std::nullopt;
  const std::string unit = to_lower(text.substr(digits));
  if (unit.empty() || unit == "b")
    return *v;
  if (unit == "k" || unit == "kib" || unit == "kb")
    return *v * 1024;
  if (unit == "m" || unit == "mib" || unit == "mb")
    return *v * 1048576;
  if (unit == "g" || unit == "gib" || unit == "gb")
    return *v * 1073741824.0;
  return std::nullopt;
}

void ingest_fio(IngestedFile& f, const Origin& o, const FioReport& report) {
  f.result.tools["fio"] = report.version.empty() ? "unknown (not printed)" : report.version;
  bool seq_done = false, rand_done = false;
  for (std::size_t i = 0; i < report.jobs.size(); ++i) {
    const auto& job = report.jobs[i];
    if (job.error != 0)
      o.fail(0, fmt::format("fio job \"{}\" ended with error {}: its figures are not a measurement",
                            excerpt(job.name), job.error));
    const std::string series =
        fmt::format("fio_{}", key_part(job.name.empty() ? std::to_string(i) : job.name));
    const auto bs = block_size(job.bs);
    f.result.samples.add(series, 0, bs.value_or(0), "read_bytes_per_s", job.read.bw_Bps);
    f.result.samples.add(series, 0, bs.value_or(0), "read_iops", job.read.iops);
    f.result.samples.add(series, 0, bs.value_or(0), "usr_cpu_percent", job.usr_cpu_percent);
    f.result.samples.add(series, 0, bs.value_or(0), "sys_cpu_percent", job.sys_cpu_percent);
    const bool sequential = job.rw == "read";
    const bool random = job.rw == "randread";
    if (!sequential && !random) {
      f.warnings.push_back(
          fmt::format("fio job \"{}\" (rw={}): only read and randread jobs calibrate the storage "
                      "parameters (raw samples only)",
                      excerpt(job.name), job.rw.empty() ? "not printed" : job.rw));
      continue;
    }
    if (!(job.read.bw_Bps > 0) || !(job.read.iops > 0))
      o.fail(0, fmt::format("fio job \"{}\": read bandwidth {} B/s and {} IOPS; expected positive figures",
                            excerpt(job.name), job.read.bw_Bps, job.read.iops));
    const std::string method = fmt::format("fio job \"{}\" (rw={}, bs={})", job.name, job.rw, job.bs);
    if (sequential) {
      if (seq_done)
        o.fail(0, "a second sequential read job: give one per file, so that the profile says which it took");
      seq_done = true;
      if (bs && *bs < 131072)
        f.warnings.push_back(
            fmt::format("fio job \"{}\" reads sequentially in {} blocks: storage.read_bandwidth "
                        "is meant for large blocks (the probe reads 1 MiB)",
                        excerpt(job.name), job.bs));
      add_param_of_file(f, "storage",
                        ParamSpec{"storage.read_bandwidth", job.read.bw_Bps,
                                  calibration::Provenance::measured, o.cite(method + ": read bandwidth"),
                                  series, std::nullopt, ""});
      const double cpu_s = (job.usr_cpu_percent + job.sys_cpu_percent) / 100.0 * job.read.runtime_s;
      if (job.jobs > 1)
        f.warnings.push_back(fmt::format("storage.read_rate_per_core left out: job \"{}\" sums {} processes, "
                                         "whose CPU figures are not one core's",
                                         excerpt(job.name), job.jobs));
      else if (cpu_s > 0 && job.read.io_bytes > 0)
        add_param_of_file(f, "storage",
                          ParamSpec{"storage.read_rate_per_core", job.read.io_bytes / cpu_s,
                                    calibration::Provenance::measured,
                                    o.cite(method + ": bytes read over the job's CPU seconds (usr + sys)"),
                                    series, std::nullopt, ""});
      else
        f.warnings.push_back(
            "storage.read_rate_per_core left out: the job reports no CPU time or no bytes read");
    } else {
      if (rand_done)
        o.fail(0, "a second random read job: give one per file, so that the profile says which it took");
      rand_done = true;
      if (bs && *bs != 4096)
        f.warnings.push_back(fmt::format("storage.random_read_iops left out: job \"{}\" reads {} blocks, the "
                                         "parameter is for 4 KiB",
                                         excerpt(job.name), job.bs));
      else
        add_param_of_file(f, "storage",
                          ParamSpec{"storage.random_read_iops", job.read.iops,
                                    calibration::Provenance::measured, o.cite(method + ": read IOPS"), series,
                                    std::nullopt, ""});
      const auto& pct = job.read.clat_percentiles_s;
      if (pct.contains(50.0) && pct.contains(99.0) && pct.at(50.0) > 0 && pct.at(99.0) >= pct.at(50.0)) {
        if (job.iodepth > 1)
          f.warnings.push_back(
              fmt::format("storage.read_latency_median and _p99 left out: job \"{}\" keeps {} "
                          "reads in flight, so its completion latency includes queueing "
                          "(the parameters are for queue depth 1)",
                          excerpt(job.name), job.iodepth));
        else {
          add_param_of_file(f, "storage",
                            ParamSpec{"storage.read_latency_median", pct.at(50.0),
                                      calibration::Provenance::measured,
                                      o.cite(method + ": median completion latency (clat 50.00th)"), series,
                                      std::nullopt, ""});
          add_param_of_file(f, "storage",
                            ParamSpec{"storage.read_latency_p99", pct.at(99.0),
                                      calibration::Provenance::measured,
                                      o.cite(method + ": completion latency 99.00th percentile"), series,
                                      std::nullopt, ""});
        }
      } else
        f.warnings.push_back(fmt::format("storage.read_latency_median and _p99 left out: no 50th and 99th "
                                         "completion-latency percentiles read from job \"{}\" (fio "
                                         "--output-format=json gives them)",
                                         excerpt(job.name)));
    }
  }
}

// --- iperf3 -----------------------------------------------------------------------------------------

void ingest_iperf3(IngestedFile& f, const Origin& o, std::string_view text, const IngestOptions& opt) {
  const auto report = parse_iperf3(text);
  if (!report.version.empty())
    f.result.tools["iperf3"] = report.version;
  for (std::size_t i = 0; i < report.tests.size(); ++i) {
    const auto& t = report.tests[i];
    const std::string series = fmt::format("iperf3_test{}", i + 1);
    for (std::size_t k = 0; k < t.interval_bps.size(); ++k)
      f.result.samples.add(series, static_cast<long long>(k), 0, "interval_bits_per_s", t.interval_bps[k]);
    if (t.sender_bps)
      f.result.samples.add(series, 0, 0, "sender_bits_per_s", *t.sender_bps);
    if (t.receiver_bps)
      f.result.samples.add(series, 0, 0, "receiver_bits_per_s", *t.receiver_bps);
    if (t.local_cpu_percent)
      f.result.samples.add(series, 0, 0, "local_cpu_percent", *t.local_cpu_percent);
  }
  if (report.incomplete_tests > 0)
    f.warnings.push_back(fmt::format("{} test(s) of this log have no summary (interrupted) and are left out",
                                     report.incomplete_tests));
  if (report.tests.size() > 1)
    f.warnings.push_back(
        fmt::format("{} tests in this log: the last complete one gives the parameter", report.tests.size()));
  const auto& t = report.tests.back();
  const bool sends = t.local_sends();
  const auto bps = sends ? (t.sender_bps ? t.sender_bps : t.receiver_bps) : t.receiver_bps;
  const std::string side =
      fmt::format("{}{}", t.server ? "server" : "client", t.reverse ? ", reverse (-R)" : "");
  if (!bps || !(*bps > 0))
    o.fail(t.line,
           fmt::format("iperf3 {}: the {} throughput is {}: expected a positive bit rate", side,
                       sends ? "sending" : "receiving", bps ? fmt::format("{}", *bps) : "not printed"));
  f.result.summary.push_back(
      fmt::format("iperf3 {} {} at {:.2f} Gb/s", side, sends ? "sent" : "received", *bps / 1e9));
  const std::string key = role_key(opt.role, sends ? "tcp_tx_rate_per_core" : "tcp_rx_rate_per_core");
  if (!t.local_cpu_percent || !(*t.local_cpu_percent > 0)) {
    f.warnings.push_back(
        fmt::format("{} left out: the output has no CPU utilisation of this side (run iperf3 "
                    "with -V or -J); the throughput alone does not say what a core sustains",
                    key));
    return;
  }
  const double per_core = *bps / 8.0 / (*t.local_cpu_percent / 100.0);
  add_param_of_file(
      f, "tcp",
      ParamSpec{
          key, per_core, calibration::Provenance::measured,
          o.cite(fmt::format("iperf3 {} ({} stream(s)): {:.2f} Gb/s at {:.1f}% of one CPU (iperf3's own "
                             "process time; softirq work on other cores is not counted)",
                             side, t.streams, *bps / 1e9, *t.local_cpu_percent),
                 t.line),
          "iperf3_test" + std::to_string(report.tests.size()), std::nullopt, ""});
}

// --- openssl speed ----------------------------------------------------------------------------------

void ingest_openssl(IngestedFile& f, const Origin& o, std::string_view text, const IngestOptions& opt) {
  const auto report = parse_openssl_speed(text);
  if (!report.version.empty())
    f.result.tools["openssl"] = report.version;
  const OpensslSpeedRow* gcm = nullptr;
  for (const auto& row : report.rows) {
    const std::string series = "openssl_" + key_part(to_lower(row.algorithm));
    long long idx = 0;
    for (const auto& [size, rate] : row.rate_Bps) {
      if (!(rate > 0))
        o.fail(row.line, fmt::format("{} at {} bytes: a rate of {} B/s; expected a positive rate",
                                     row.algorithm, size, rate));
      f.result.samples.add(series, idx++, size, "bytes_per_s", rate);
    }
    if (to_lower(row.algorithm) == "aes-256-gcm")
      gcm = &row;
  }
  const std::string key = role_key(opt.role, "aes_gcm_rate_per_core");
  if (gcm == nullptr) {
    f.warnings.push_back(
        fmt::format("{} left out: no AES-256-GCM row (run openssl speed -evp aes-256-gcm)", key));
    return;
  }
  if (report.elapsed) {
    f.warnings.push_back(
        fmt::format("{} left out: measured with -elapsed (wall-clock time), not per CPU second", key));
    return;
  }
  const auto at = gcm->rate_Bps.find(16384.0);
  if (at == gcm->rate_Bps.end()) {
    f.warnings.push_back(fmt::format("{} left out: no 16384-byte column (the size public figures use)", key));
    return;
  }
  const double per_core = at->second / report.processes;
  f.result.summary.push_back(fmt::format("AES-256-GCM at 16 KiB: {:.2f} GB/s per core ({} process(es))",
                                         per_core / 1e9, report.processes));
  add_param_of_file(
      f, "crypto",
      ParamSpec{key, per_core, calibration::Provenance::measured,
                o.cite(fmt::format(
                           "openssl speed -evp aes-256-gcm, 16384-byte blocks, {} process(es), per user CPU "
                           "second",
                           report.processes),
                       gcm->line),
                "openssl_aes-256-gcm", std::nullopt, ""});
}

// --- inventory --------------------------------------------------------------------------------------

void ingest_lscpu(IngestedFile& f, const Origin& o, std::string_view text, const IngestOptions& opt) {
  const auto r = parse_lscpu(text);
  if (!r.unterminated_last_line.empty())
    f.warnings.push_back(
        fmt::format("the last line (\"{}\") has no newline and may be cut short: it is not read",
                    excerpt(r.unterminated_last_line)));
  auto put = [&](const char* key, const char* field) {
    if (const auto v = r.field(field); !v.empty())
      f.machine[key] = v;
  };
  put("cpu.model", "Model name");
  put("cpu.vendor", "Vendor ID");
  put("cpu.architecture", "Architecture");
  put("cpu.logical_cpus", "CPU(s)");
  put("cpu.sockets", "Socket(s)");
  put("cpu.max_mhz", "CPU max MHz");
  put("numa.nodes", "NUMA node(s)");
  const std::string flag_text = r.field("Flags"); // the views below point into it
  const auto flags = split_whitespace(flag_text);
  std::vector<std::string> crypto;
  for (const auto flag : flags)
    for (const char* c : {"aes", "vaes", "vpclmulqdq", "sha_ni", "avx512f", "pmull", "sha2", "sha3"})
      if (flag == c)
        crypto.emplace_back(flag);
  if (!flags.empty())
    f.machine["cpu.crypto_features"] = fmt::format("{}", fmt::join(crypto, " "));
  const auto cores = r.physical_cores();
  if (!cores) {
    f.warnings.push_back(fmt::format("{} left out: lscpu prints no \"Core(s) per socket\" and \"Socket(s)\"",
                                     role_key(opt.role, "cores")));
    return;
  }
  f.machine["cpu.physical_cores"] = std::to_string(*cores);
  const int line = r.lines.contains("Core(s) per socket") ? r.lines.at("Core(s) per socket") : 0;
  add_param_of_file(
      f, "discover",
      ParamSpec{
          role_key(opt.role, "cores"), static_cast<double>(*cores), calibration::Provenance::measured,
          o.cite(r.json ? "lscpu -J: cores per socket x sockets" : "lscpu: cores per socket x sockets", line),
          "", std::nullopt, fmt::format("{} logical CPUs", r.field("CPU(s)"))});
}

} // namespace

std::optional<std::string> role_hint(InputFormat format, std::string_view text) {
  if (format == InputFormat::bfver)
    return "dpu_arm";
  if (format == InputFormat::lscpu_text || format == InputFormat::lscpu_json) {
    try {
      const auto r = parse_lscpu(text);
      const auto model = r.field("Model name");
      if (r.field("Architecture") == "aarch64" && (model == "Cortex-A78AE" || model == "Cortex-A72"))
        return "dpu_arm";
    } catch (const ParseError&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

IngestedFile ingest_text(const std::string& path, std::string_view text, const IngestOptions& options) {
  IngestedFile f;
  f.path = path;
  f.checksum = content_checksum(text);
  const Origin origin{path, std::filesystem::path(path).filename().string(), f.checksum};
  if (trim(text).empty())
    origin.fail(
        0, "is empty: expected the output of a tool (nccl-tests, perftest, fio, iperf3, openssl speed, ...)");
  const auto format = detect_format(text);
  if (!format) {
    const auto first = trim(text.substr(0, std::min<std::size_t>(text.size(), 4096)));
    std::vector<std::string> names;
    for (const auto fmt_ : all_formats())
      names.emplace_back(format_name(fmt_));
    origin.fail(
        0, fmt::format("is not the output of a tool dpusim-calib reads (it starts with \"{}\"); accepted: {}",
                       excerpt(first.substr(0, first.find('\n'))), fmt::join(names, "; ")));
  }
  f.format = *format;
  try {
    switch (*format) {
    case InputFormat::nccl_tests:
      f.probe = "nccl";
      ingest_nccl(f, origin, text, options);
      break;
    case InputFormat::perftest_bw:
      f.probe = "rdma";
      ingest_perftest_bw(f, origin, text);
      break;
    case InputFormat::perftest_lat:
      f.probe = "rdma";
      ingest_perftest_lat(f, origin, text);
      break;
    case InputFormat::fio_json:
      f.probe = "storage";
      ingest_fio(f, origin, parse_fio_json(text));
      break;
    case InputFormat::fio_text:
      f.probe = "storage";
      ingest_fio(f, origin, parse_fio_text(text));
      break;
    case InputFormat::iperf3_text:
    case InputFormat::iperf3_json:
      f.probe = "tcp";
      ingest_iperf3(f, origin, text, options);
      break;
    case InputFormat::openssl_speed:
      f.probe = "crypto";
      ingest_openssl(f, origin, text, options);
      break;
    case InputFormat::lscpu_text:
    case InputFormat::lscpu_json:
      ingest_lscpu(f, origin, text, options);
      break;
    default:
      f.machine = inventory_entries(*format, text);
      break;
    }
  } catch (const ParseError& e) {
    throw InputFileError(path, 0, e.what());
  } catch (const YAML::Exception& e) {
    throw InputFileError(path, 0,
                         fmt::format("{}: unexpected JSON structure: {}", format_name(*format), e.msg));
  } catch (const InputFileError&) {
    throw;
  } catch (const std::exception& e) {
    // Whatever else the content provokes is still a problem of this file, not a failed measurement.
    throw InputFileError(path, 0,
                         fmt::format("{} output that could not be read: {}", format_name(*format), e.what()));
  }
  for (const auto& n : f.result.notes)
    f.warnings.push_back(n);
  f.result.notes.clear();
  return f;
}

} // namespace dpusim::calib
