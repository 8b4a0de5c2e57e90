// The discover result as the profile stores it (a flat "a.b.c" -> text map, which the profile writer
// nests back into YAML mappings) and as `discover` prints it for a person.
#pragma once

#include "hw_calib/discover/machine_info.hpp"

#include <map>
#include <string>

namespace dpusim::calib {

std::map<std::string, std::string> flatten_machine(const MachineInfo& machine);
std::string render_machine_summary(const MachineInfo& machine);

} // namespace dpusim::calib
