// Errors in user input (scenarios, catalog entries, calibration profiles): they name the file, line,
// column and key, say what was found and what is valid. Exit status 2 at the command line.
#pragma once

#include <stdexcept>
#include <string>

namespace dpusim {

struct Location {
  std::string file;
  int line = 0;   // 1-based; 0 when unknown
  int column = 0; // 1-based; 0 when unknown
};

class InputError : public std::runtime_error {
public:
  InputError(Location where, std::string key, std::string message);

  [[nodiscard]] const Location& where() const { return where_; }
  [[nodiscard]] const std::string& key() const { return key_; }
  [[nodiscard]] const std::string& message() const { return message_; }

private:
  Location where_;
  std::string key_;
  std::string message_;
};

} // namespace dpusim
