// Pieces shared by the commands: option parsing with uniform errors, catalog location, output paths.
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/scenario/scenario.hpp"

#include <boost/program_options.hpp>
#include <filesystem>
#include <string>
#include <vector>

namespace dpusim::cli {

namespace po = boost::program_options;

/// Parses `args` with `options` and one positional SCENARIO (and, where `second` names it, a second
/// positional file, required); returns false after printing help. Throws po::error on bad usage.
bool parse_command(const std::string& name, const std::string& synopsis, const std::string& about,
                   po::options_description& options, const std::vector<std::string>& args,
                   po::variables_map& vm, bool wants_scenario, const std::string& default_positional = {},
                   const std::string& second = {});

/// Options every simulating command takes.
void add_common_options(po::options_description& options);

catalog::Catalog load_catalog(const po::variables_map& vm);
/// The line under a run's heading: the model's parameters and the GPU memory its most loaded rank holds.
std::string model_line(const scenario::Scenario& s, const catalog::Catalog& cat);
std::filesystem::path output_directory(const po::variables_map& vm, const std::string& scenario_name);
bool show_progress(const po::variables_map& vm);
/// The variant --variant names (a name from the scenario or a placement), else the scenario's baseline;
/// po::error (bad input) for one that is neither.
offload::Variant variant_option(const po::variables_map& vm, const scenario::Scenario& s,
                                const catalog::Catalog& cat);

} // namespace dpusim::cli
