#include "models/catalog/cited.hpp"

namespace dpusim::catalog {

std::string Citation::describe() const {
  switch (kind) {
  case Kind::source:
    return text;
  case Kind::assumption:
    return "assumption: " + text;
  case Kind::calibration:
    return "calibration: " + text;
  }
  return text;
}

} // namespace dpusim::catalog
