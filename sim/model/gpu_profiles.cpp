#include "sim/model/gpu_profiles.hpp"

#include <algorithm>
#include <sstream>

namespace dpusim::model {

std::vector<std::string> gpu_profile_names(const catalog::Catalog& cat) {
  std::vector<std::string> names;
  const auto dir = cat.directory() / "gpu_profiles";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml")
      names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::filesystem::path gpu_profile_path(const catalog::Catalog& cat, const std::string& name) {
  return cat.directory() / "gpu_profiles" / (name + ".yaml");
}

std::vector<std::string> gpu_profile_gpus(const catalog::Catalog& cat, const std::string& name) {
  const auto profile = calibration::load_profile(gpu_profile_path(cat, name).string());
  std::vector<std::string> gpus;
  if (const auto it = profile.machine.find("gpus"); it != profile.machine.end()) {
    std::istringstream words(it->second);
    for (std::string w; words >> w;)
      gpus.push_back(w);
  }
  return gpus;
}

} // namespace dpusim::model
