// The one place where text such as "400Gbps", "2us" or "80GiB" becomes a typed quantity.
#pragma once

#include "models/base/units.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::units {

/// Thrown when a text is not a valid quantity of the expected dimension; the message says what is valid.
class UnitError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Parses "<number><unit>" (optional space between) into a quantity; throws UnitError.
template <class Q>
Q parse_quantity(std::string_view text);

/// Human name of a quantity's dimension ("data rate") and an example of valid text ("400Gbps").
template <class Q>
std::string_view dimension_name();
template <class Q>
std::string_view dimension_example();
/// Every unit symbol accepted for a dimension, in the order they are documented.
template <class Q>
std::vector<std::string> unit_symbols();

/// Formats a quantity with the unit a reader expects ("400Gbps", "1.2us", "80GiB").
std::string format(Bytes v);
std::string format(Seconds v);
std::string format(DataRate v);
std::string format(Flops v);
std::string format(FlopRate v);
std::string format(Frequency v);
std::string format(Power v);
std::string format(Energy v);
std::string format(Money v);

/// Parses a ratio such as "1:1" or "3:1" into its value (3.0); throws UnitError.
double parse_ratio(std::string_view text);

} // namespace dpusim::units
