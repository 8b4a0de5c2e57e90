// The HTML report of a run's outputs (`dpusim report`, and `--report` on `run` and `compare`): a
// Python script over the CSVs (tools/report/render.py, matplotlib) draws the figures; this side checks
// the input, bounds the script in time, and publishes the page and its figures.
#pragma once

#include "sim/cli/common.hpp"

#include <filesystem>

namespace dpusim::cli {

/// --report on a simulating command.
void add_report_option(po::options_description& options);

/// Renders the outputs in `dir` into `html`, with the figures as SVG and PNG in `<html stem>-figures/`
/// beside it. Returns the exit status: 0, 1 (the renderer is missing, failed or ran out of time) or 2
/// (no outputs of dpusim in `dir`); prints what went wrong, and "wrote ..." unless `quiet`.
int render_report(const std::filesystem::path& dir, const std::filesystem::path& html, bool quiet);

} // namespace dpusim::cli
