#include "models/base/unit_parse.hpp"

#include "models/base/text_distance.hpp"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <span>
#include <string>

namespace dpusim::units {
namespace {

struct UnitDef {
  std::string_view symbol;
  double factor; // multiply the number by this to get SI base units
};

constexpr std::array kDataUnits{
    UnitDef{"B", 1.0},
    UnitDef{"kB", 1e3},
    UnitDef{"KB", 1e3},
    UnitDef{"MB", 1e6},
    UnitDef{"GB", 1e9},
    UnitDef{"TB", 1e12},
    UnitDef{"PB", 1e15},
    UnitDef{"KiB", 1024.0},
    UnitDef{"MiB", 1048576.0},
    UnitDef{"GiB", 1073741824.0},
    UnitDef{"TiB", 1099511627776.0},
    UnitDef{"PiB", 1125899906842624.0},
};
constexpr std::array kTimeUnits{
    UnitDef{"ns", 1e-9}, UnitDef{"us", 1e-6},  UnitDef{"\xC2\xB5s", 1e-6}, UnitDef{"ms", 1e-3},
    UnitDef{"s", 1.0},   UnitDef{"min", 60.0}, UnitDef{"h", 3600.0},
};
constexpr std::array kRateUnits{
    UnitDef{"bps", 1.0 / 8},  UnitDef{"Kbps", 1e3 / 8},    UnitDef{"Mbps", 1e6 / 8},
    UnitDef{"Gbps", 1e9 / 8}, UnitDef{"Tbps", 1e12 / 8},   UnitDef{"Kb/s", 1e3 / 8},
    UnitDef{"Mb/s", 1e6 / 8}, UnitDef{"Gb/s", 1e9 / 8},    UnitDef{"Tb/s", 1e12 / 8},
    UnitDef{"B/s", 1.0},      UnitDef{"kB/s", 1e3},        UnitDef{"KB/s", 1e3},
    UnitDef{"MB/s", 1e6},     UnitDef{"GB/s", 1e9},        UnitDef{"TB/s", 1e12},
    UnitDef{"KiB/s", 1024.0}, UnitDef{"MiB/s", 1048576.0}, UnitDef{"GiB/s", 1073741824.0},
    UnitDef{"MBps", 1e6},     UnitDef{"GBps", 1e9},        UnitDef{"TBps", 1e12},
};
constexpr std::array kWorkUnits{
    UnitDef{"FLOP", 1.0},   UnitDef{"kFLOP", 1e3},  UnitDef{"MFLOP", 1e6},  UnitDef{"GFLOP", 1e9},
    UnitDef{"TFLOP", 1e12}, UnitDef{"PFLOP", 1e15}, UnitDef{"EFLOP", 1e18},
};
constexpr std::array kWorkRateUnits{
    UnitDef{"FLOPS", 1.0},  UnitDef{"GFLOPS", 1e9},  UnitDef{"TFLOPS", 1e12},  UnitDef{"PFLOPS", 1e15},
    UnitDef{"FLOP/s", 1.0}, UnitDef{"GFLOP/s", 1e9}, UnitDef{"TFLOP/s", 1e12}, UnitDef{"PFLOP/s", 1e15},
};
constexpr std::array kFreqUnits{UnitDef{"Hz", 1.0}, UnitDef{"kHz", 1e3}, UnitDef{"MHz", 1e6},
                                UnitDef{"GHz", 1e9}};
constexpr std::array kPowerUnits{UnitDef{"W", 1.0}, UnitDef{"kW", 1e3}, UnitDef{"MW", 1e6}};
constexpr std::array kEnergyUnits{UnitDef{"J", 1.0}, UnitDef{"kJ", 1e3}, UnitDef{"MJ", 1e6},
                                  UnitDef{"kWh", 3.6e6}, UnitDef{"MWh", 3.6e9}};
constexpr std::array kMoneyUnits{UnitDef{"USD", 1.0}, UnitDef{"kUSD", 1e3}, UnitDef{"MUSD", 1e6}};

template <class Q>
struct Traits;
// Each dimension's name, example, units and the range of magnitudes the models work with (SI): far
// outside what hardware does, yet narrow enough that durations, rates and sizes stay finite and exact
// in the simulator's arithmetic. Zero is a separate matter, allowed or not by the reader.
#define DPUSIM_UNIT_TRAITS(Q, table, name, example, least, most, range)                                      \
  template <>                                                                                                \
  struct Traits<Q> {                                                                                         \
    static std::span<const UnitDef> units() { return table; }                                                \
    static constexpr std::string_view kName = name;                                                          \
    static constexpr std::string_view kExample = example;                                                    \
    static constexpr double kLeast = least;                                                                  \
    static constexpr double kMost = most;                                                                    \
    static constexpr std::string_view kRange = range;                                                        \
  };
DPUSIM_UNIT_TRAITS(Bytes, kDataUnits, "data size", "80GiB", 1.0, 1e18, "from 1B to 1000PB")
DPUSIM_UNIT_TRAITS(Seconds, kTimeUnits, "duration", "2us", 1e-9, 1e6, "from 1ns to 1000000s")
DPUSIM_UNIT_TRAITS(DataRate, kRateUnits, "data rate", "400Gbps", 125.0, 1e15, "from 1Kbps to 8000Tbps")
DPUSIM_UNIT_TRAITS(Flops, kWorkUnits, "amount of work", "3.2TFLOP", 1.0, 1e27, "from 1FLOP to 1e9EFLOP")
DPUSIM_UNIT_TRAITS(FlopRate, kWorkRateUnits, "compute rate", "989TFLOPS", 1e3, 1e18,
                   "from 1000FLOPS to 1000PFLOPS")
DPUSIM_UNIT_TRAITS(Frequency, kFreqUnits, "frequency", "2.25GHz", 1.0, 1e12, "from 1Hz to 1000GHz")
DPUSIM_UNIT_TRAITS(Power, kPowerUnits, "power", "700W", 1e-3, 1e10, "from 0.001W to 10000MW")
DPUSIM_UNIT_TRAITS(Energy, kEnergyUnits, "energy", "1.5kWh", 1e-3, 1e16, "from 0.001J to 1e10MJ")
DPUSIM_UNIT_TRAITS(Money, kMoneyUnits, "price", "25000USD", 1e-6, 1e13, "from 0.000001USD to 1e7MUSD")
#undef DPUSIM_UNIT_TRAITS

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::string symbol_list(std::span<const UnitDef> table) {
  std::string out;
  for (const auto& u : table) {
    if (!out.empty())
      out += ", ";
    out += u.symbol;
  }
  return out;
}

template <class Q>
std::string format_best(Q value, std::span<const UnitDef> table) {
  // Pick the largest unit whose value is >= 1, among a preferred subset (first symbol of each factor).
  const double v = value.si();
  const UnitDef* best = &table.front();
  for (const auto& u : table) {
    if (std::abs(v) >= u.factor && u.factor >= best->factor)
      best = &u;
  }
  return fmt::format("{:g}{}", v / best->factor, best->symbol);
}

} // namespace

template <class Q>
Q parse_quantity(std::string_view text) {
  using T = Traits<Q>;
  const std::string_view s = trim(text);
  const std::string buf(s);
  if (buf.empty())
    throw UnitError(fmt::format("expected a {} such as \"{}\", found an empty value", T::kName, T::kExample));
  char* end = nullptr;
  errno = 0;
  const double number = std::strtod(buf.c_str(), &end);
  if (end == buf.c_str())
    throw UnitError(
        fmt::format("expected a {} such as \"{}\", found \"{}\" (no number)", T::kName, T::kExample, buf));
  if (errno == ERANGE || !std::isfinite(number))
    throw UnitError(fmt::format("the number in \"{}\" is out of range", buf));
  const std::string_view unit = trim(std::string_view(end));
  if (unit.empty())
    throw UnitError(fmt::format("\"{}\" has no unit; a {} needs one, e.g. \"{}\" (valid units: {})", buf,
                                T::kName, T::kExample, symbol_list(T::units())));
  for (const auto& u : T::units()) {
    if (u.symbol != unit)
      continue;
    const auto value = Q::from_si(number * u.factor);
    const double magnitude = std::abs(value.si());
    if (magnitude != 0 && (magnitude < T::kLeast || magnitude > T::kMost))
      throw UnitError(fmt::format("\"{}\" is outside the range of a {} that dpusim models: {}", buf, T::kName,
                                  T::kRange));
    return value;
  }
  std::vector<std::string> symbols;
  for (const auto& u : T::units())
    symbols.emplace_back(u.symbol);
  const std::string hint = did_you_mean(unit, symbols);
  throw UnitError(fmt::format(
      "unknown unit \"{}\" in \"{}\" for a {}{}; valid units: {}", unit, buf, T::kName,
      hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint), symbol_list(T::units())));
}

template <class Q>
std::string_view dimension_name() {
  return Traits<Q>::kName;
}
template <class Q>
std::string_view dimension_example() {
  return Traits<Q>::kExample;
}
template <class Q>
std::vector<std::string> unit_symbols() {
  std::vector<std::string> out;
  for (const auto& u : Traits<Q>::units())
    out.emplace_back(u.symbol);
  return out;
}

#define DPUSIM_INSTANTIATE(Q)                                                                                \
  template Q parse_quantity<Q>(std::string_view);                                                            \
  template std::string_view dimension_name<Q>();                                                             \
  template std::string_view dimension_example<Q>();                                                          \
  template std::vector<std::string> unit_symbols<Q>();
DPUSIM_INSTANTIATE(Bytes)
DPUSIM_INSTANTIATE(Seconds)
DPUSIM_INSTANTIATE(DataRate)
DPUSIM_INSTANTIATE(Flops)
DPUSIM_INSTANTIATE(FlopRate)
DPUSIM_INSTANTIATE(Frequency)
DPUSIM_INSTANTIATE(Power)
DPUSIM_INSTANTIATE(Energy)
DPUSIM_INSTANTIATE(Money)
#undef DPUSIM_INSTANTIATE

std::string format(Bytes v) {
  static constexpr std::array kShown{UnitDef{"B", 1.0}, UnitDef{"KiB", 1024.0}, UnitDef{"MiB", 1048576.0},
                                     UnitDef{"GiB", 1073741824.0}, UnitDef{"TiB", 1099511627776.0}};
  return format_best(v, kShown);
}
std::string format(Seconds v) {
  static constexpr std::array kShown{UnitDef{"ns", 1e-9}, UnitDef{"us", 1e-6}, UnitDef{"ms", 1e-3},
                                     UnitDef{"s", 1.0}};
  return format_best(v, kShown);
}
std::string format(DataRate v) {
  static constexpr std::array kShown{UnitDef{"bps", 1.0 / 8}, UnitDef{"Kbps", 1e3 / 8},
                                     UnitDef{"Mbps", 1e6 / 8}, UnitDef{"Gbps", 1e9 / 8},
                                     UnitDef{"Tbps", 1e12 / 8}};
  return format_best(v, kShown);
}
std::string format(Flops v) {
  return format_best(v, kWorkUnits);
}
std::string format(FlopRate v) {
  static constexpr std::array kShown{UnitDef{"FLOPS", 1.0}, UnitDef{"GFLOPS", 1e9}, UnitDef{"TFLOPS", 1e12},
                                     UnitDef{"PFLOPS", 1e15}};
  return format_best(v, kShown);
}
std::string format(Frequency v) {
  return format_best(v, kFreqUnits);
}
std::string format(Power v) {
  return format_best(v, kPowerUnits);
}
std::string format(Energy v) {
  static constexpr std::array kShown{UnitDef{"J", 1.0}, UnitDef{"kJ", 1e3}, UnitDef{"MJ", 1e6}};
  return format_best(v, kShown);
}
std::string format(Money v) {
  return fmt::format("{:.0f}USD", v.si());
}

double parse_ratio(std::string_view text) {
  const std::string s(trim(text));
  const auto colon = s.find(':');
  if (colon == std::string::npos)
    throw UnitError(fmt::format("expected a ratio such as \"1:1\" or \"3:1\", found \"{}\"", s));
  char* end = nullptr;
  const std::string left = s.substr(0, colon);
  const std::string right = s.substr(colon + 1);
  const double a = std::strtod(left.c_str(), &end);
  const bool left_ok = end != left.c_str() && trim(std::string_view(end)).empty();
  const double b = std::strtod(right.c_str(), &end);
  const bool right_ok = end != right.c_str() && trim(std::string_view(end)).empty();
  if (!left_ok || !right_ok || !(a > 0) || !(b > 0) || !std::isfinite(a) || !std::isfinite(b))
    throw UnitError(fmt::format("expected a ratio of two positive numbers such as \"3:1\", found \"{}\"", s));
  return a / b;
}

} // namespace dpusim::units
