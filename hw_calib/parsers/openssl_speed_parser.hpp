// `openssl speed [-evp CIPHER] [-seconds N] [-multi N]`: after "The 'numbers' are in 1000s of bytes per
// second processed.", a "type" header with the block sizes ("16 bytes ... 16384 bytes") and one row per
// algorithm whose values end in 'k' (1000 bytes/s). Without -elapsed openssl divides by the process's
// user CPU time, so one row is a per-core rate; with -multi N the N processes' rates are summed
// ("Forked child" lines), and the parser says how many there were.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct OpensslSpeedRow {
  int line = 0;
  std::string algorithm;             // "AES-256-GCM", "aes-256-gcm"
  std::map<double, double> rate_Bps; // block size in bytes -> bytes per second
};

struct OpensslSpeedReport {
  std::string version;  // "3.0.19" from "version: 3.0.19" (or the "OpenSSL 3.0.19 ..." line)
  int processes = 1;    // -multi N
  bool elapsed = false; // "-elapsed": wall-clock time (the rates are then not per CPU-second)
  std::vector<OpensslSpeedRow> rows;
};

/// Throws ParseError without the "1000s of bytes" statement, without a header, or without a row.
OpensslSpeedReport parse_openssl_speed(std::string_view text);

} // namespace dpusim::calib
