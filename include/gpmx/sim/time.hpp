#pragma once
// Virtual time of the timed mode: picoseconds in an unsigned 64-bit count
// (about 213 days), fine enough that sub-cycle bandwidth costs add up
// exactly enough. Conversions round to the nearest picosecond or cycle, and
// always from the whole count (never a rounded per-cycle value times n), so
// cycles_to_picos(n) differs from n * 732.6007... ps by at most half a ps.
#include <cmath>
#include <cstdint>

namespace gpmx::sim {

using picos = std::uint64_t;

// `cycles` of a clock of `mhz` megahertz, in picoseconds (rounded to nearest).
constexpr picos cycles_to_picos(std::uint64_t cycles, std::uint32_t mhz) {
  return (cycles * 1'000'000u + mhz / 2) / mhz;
}

// Picoseconds as whole cycles of a `mhz` clock (rounded to nearest).
constexpr std::uint64_t picos_to_cycles(picos p, std::uint32_t mhz) {
  return (p * mhz + 500'000u) / 1'000'000u;
}

// Picoseconds as fractional cycles, for reports.
constexpr double picos_to_cycles_exact(picos p, std::uint32_t mhz) {
  return double(p) * double(mhz) / 1e6;
}

// Nanoseconds (a configuration value) in picoseconds, rounded to nearest.
inline picos ns_to_picos(double ns) { return picos(std::llround(ns * 1000.0)); }

}  // namespace gpmx::sim
