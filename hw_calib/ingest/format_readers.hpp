// What the readers of ingest's formats share (ingest.cpp holds most of them, nccl_ingest.cpp the
// nccl-tests logs'): where a file's parameters came from, and adding a parameter or the warning that
// says why it was left out.
#pragma once

#include "hw_calib/common/bounded_input.hpp"
#include "hw_calib/ingest/ingest.hpp"
#include "hw_calib/measurement/param_builder.hpp"

#include <fmt/format.h>
#include <string>
#include <string_view>

namespace dpusim::calib {

// What every parameter of a file says about where it came from.
struct Origin {
  std::string path;
  std::string name;     // the file's name, for sources
  std::string checksum; // "sha256:..."
  [[nodiscard]] std::string cite(std::string_view what, int first_line = 0, int last_line = 0) const {
    const std::string lines = first_line <= 0          ? std::string()
                              : last_line > first_line ? fmt::format(", lines {}-{}", first_line, last_line)
                                                       : fmt::format(", line {}", first_line);
    return fmt::format("{}; recorded in {} ({}{})", what, name, checksum.substr(0, 19), lines);
  }
  [[noreturn]] void fail(int line, const std::string& message) const {
    throw InputFileError(path, line, message);
  }
};

/// Adds the parameter to the file's result; where the registry refuses it, the reason becomes a warning.
void add_param_of_file(IngestedFile& f, const std::string& probe, ParamSpec spec);

/// An nccl-tests log: the collective's bus bandwidth, efficiency and latency fits (nccl_ingest.cpp).
void ingest_nccl(IngestedFile& f, const Origin& o, std::string_view text, const IngestOptions& opt);

} // namespace dpusim::calib
