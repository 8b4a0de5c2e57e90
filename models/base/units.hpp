// Physical quantities as types, so that bytes and bits, seconds and microseconds, FLOPs and FLOP/s
// cannot be mixed up. Every quantity is stored in SI base units (bytes, seconds, FLOP, hertz, watts,
// US dollars); the named constructors below and `parse_quantity` are the only ways in.
#pragma once

#include <compare>

namespace dpusim::units {

struct DataDim {};     // bytes
struct TimeDim {};     // seconds
struct RateDim {};     // bytes per second
struct WorkDim {};     // floating-point operations
struct WorkRateDim {}; // FLOP per second
struct FreqDim {};     // hertz (cycles per second)
struct PowerDim {};    // watts
struct EnergyDim {};   // joules
struct MoneyDim {};    // US dollars

template <class Dim>
class Quantity {
public:
  constexpr Quantity() = default;
  static constexpr Quantity from_si(double value) {
    Quantity q;
    q.value_ = value;
    return q;
  }
  /// The value in SI base units (bytes, seconds, FLOP, Hz, W, J, USD).
  [[nodiscard]] constexpr double si() const { return value_; }

  constexpr Quantity& operator+=(Quantity other) {
    value_ += other.value_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity other) {
    value_ -= other.value_;
    return *this;
  }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return from_si(a.value_ + b.value_); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return from_si(a.value_ - b.value_); }
  friend constexpr Quantity operator-(Quantity a) { return from_si(-a.value_); }
  friend constexpr Quantity operator*(Quantity a, double k) { return from_si(a.value_ * k); }
  friend constexpr Quantity operator*(double k, Quantity a) { return from_si(a.value_ * k); }
  friend constexpr Quantity operator/(Quantity a, double k) { return from_si(a.value_ / k); }
  /// Ratio of two quantities of the same dimension is a plain number.
  friend constexpr double operator/(Quantity a, Quantity b) { return a.value_ / b.value_; }
  friend constexpr auto operator<=>(Quantity a, Quantity b) = default;

private:
  double value_ = 0.0;
};

using Bytes = Quantity<DataDim>;
using Seconds = Quantity<TimeDim>;
using DataRate = Quantity<RateDim>;
using Flops = Quantity<WorkDim>;
using FlopRate = Quantity<WorkRateDim>;
using Frequency = Quantity<FreqDim>;
using Power = Quantity<PowerDim>;
using Energy = Quantity<EnergyDim>;
using Money = Quantity<MoneyDim>;

// Cross-dimension arithmetic: only the combinations that mean something.
constexpr Seconds operator/(Bytes b, DataRate r) {
  return Seconds::from_si(b.si() / r.si());
}
constexpr Bytes operator*(DataRate r, Seconds t) {
  return Bytes::from_si(r.si() * t.si());
}
constexpr Bytes operator*(Seconds t, DataRate r) {
  return r * t;
}
constexpr DataRate operator/(Bytes b, Seconds t) {
  return DataRate::from_si(b.si() / t.si());
}
constexpr Seconds operator/(Flops f, FlopRate r) {
  return Seconds::from_si(f.si() / r.si());
}
constexpr Flops operator*(FlopRate r, Seconds t) {
  return Flops::from_si(r.si() * t.si());
}
constexpr Flops operator*(Seconds t, FlopRate r) {
  return r * t;
}
constexpr FlopRate operator/(Flops f, Seconds t) {
  return FlopRate::from_si(f.si() / t.si());
}
constexpr Energy operator*(Power p, Seconds t) {
  return Energy::from_si(p.si() * t.si());
}

// Named constructors. Data sizes: decimal (kB, MB, GB) and binary (KiB, MiB, GiB) prefixes.
constexpr Bytes bytes(double v) {
  return Bytes::from_si(v);
}
constexpr Bytes kib(double v) {
  return Bytes::from_si(v * 1024.0);
}
constexpr Bytes mib(double v) {
  return Bytes::from_si(v * 1024.0 * 1024.0);
}
constexpr Bytes gib(double v) {
  return Bytes::from_si(v * 1024.0 * 1024.0 * 1024.0);
}
constexpr Bytes megabytes(double v) {
  return Bytes::from_si(v * 1e6);
}
constexpr Bytes gigabytes(double v) {
  return Bytes::from_si(v * 1e9);
}

constexpr Seconds seconds(double v) {
  return Seconds::from_si(v);
}
constexpr Seconds milliseconds(double v) {
  return Seconds::from_si(v * 1e-3);
}
constexpr Seconds microseconds(double v) {
  return Seconds::from_si(v * 1e-6);
}
constexpr Seconds nanoseconds(double v) {
  return Seconds::from_si(v * 1e-9);
}

/// Network rates are quoted in bits per second (Gb/s = 1e9 bit/s); stored as bytes per second.
constexpr DataRate gbit_per_s(double v) {
  return DataRate::from_si(v * 1e9 / 8.0);
}
constexpr DataRate gbyte_per_s(double v) {
  return DataRate::from_si(v * 1e9);
}
constexpr DataRate bytes_per_s(double v) {
  return DataRate::from_si(v);
}

constexpr Flops flops(double v) {
  return Flops::from_si(v);
}
constexpr FlopRate tflop_per_s(double v) {
  return FlopRate::from_si(v * 1e12);
}
constexpr FlopRate flop_per_s(double v) {
  return FlopRate::from_si(v);
}

constexpr Frequency ghz(double v) {
  return Frequency::from_si(v * 1e9);
}
constexpr Power watts(double v) {
  return Power::from_si(v);
}
constexpr Money usd(double v) {
  return Money::from_si(v);
}

// Readers for reporting in the units users think in.
constexpr double in_gbit_per_s(DataRate r) {
  return r.si() * 8.0 / 1e9;
}
constexpr double in_gbyte_per_s(DataRate r) {
  return r.si() / 1e9;
}
constexpr double in_tflop_per_s(FlopRate r) {
  return r.si() / 1e12;
}
constexpr double in_microseconds(Seconds t) {
  return t.si() * 1e6;
}
constexpr double in_milliseconds(Seconds t) {
  return t.si() * 1e3;
}
constexpr double in_gib(Bytes b) {
  return b.si() / (1024.0 * 1024.0 * 1024.0);
}
constexpr double in_gigabytes(Bytes b) {
  return b.si() / 1e9;
}

} // namespace dpusim::units
