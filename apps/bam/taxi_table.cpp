#include "bam/taxi_table.hpp"

#include <cmath>

#include <fmt/format.h>

#include "gpmx/support/hash_mix.hpp"

namespace gpmx::apps::bam {

namespace {
// A uniform draw in (0, 1) from the stream (seed, c, r, k).
double uniform(std::uint64_t seed, std::uint32_t c, std::uint64_t r, std::uint32_t k) {
  const std::uint64_t h = mix64(mix64(seed * 0x9e3779b97f4a7c15ull + r) ^ (std::uint64_t(c) << 8 | k));
  return (double(h >> 11) + 0.5) / double(1ull << 53);
}
}  // namespace

std::uint64_t taxi_value(std::uint64_t seed, std::uint32_t c, std::uint64_t r) {
  // Box-Muller: a standard normal from two uniforms of the row's own stream.
  const double z = std::sqrt(-2.0 * std::log(uniform(seed, 0, r, 0))) * std::cos(6.283185307179586 * uniform(seed, 0, r, 1));
  const auto distance = std::uint64_t(std::llround(100.0 * 1.7 * std::exp(0.84 * z)));
  const double miles = double(distance) / 100.0;
  switch (c) {
    case 0: return distance;
    case 1: return std::uint64_t(std::llround(250 + 250 * miles + 1500 * uniform(seed, 1, r, 0)));  // total
    case 2: return uniform(seed, 2, r, 0) < 0.4 ? 50 : 0;                                           // surcharge
    case 3: return uniform(seed, 3, r, 0) < 0.1 ? 100 : 0;                                          // hail fee
    case 4: return miles > 15 && uniform(seed, 4, r, 0) < 0.6 ? 694 : 0;                            // tolls
    default: return 50 + std::uint64_t(std::llround(0.08875 * (250 + 250 * miles)));               // taxes
  }
}

std::string describe(const query_answer& a, std::uint32_t query) {
  if (a.trips == 0) return fmt::format("Q{}: no trip of at least 30 miles", query);
  const double miles = double(a.sums[0]) / 100.0;
  if (query == 0) return fmt::format("Q0: {} trips of at least 30 miles, {:.2f} miles in all", a.trips, miles);
  std::uint64_t cents = 0;
  for (std::uint32_t c = 1; c <= query; ++c) cents += a.sums[c];
  return fmt::format("Q{}: {} trips of at least 30 miles, {:.4f} $/mile over the first {} cost columns", query, a.trips,
                     double(cents) / 100.0 / miles, query);
}

}  // namespace gpmx::apps::bam
