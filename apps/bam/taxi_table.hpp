#pragma once
// A taxi-trip-like table for the analytics queries (002_..., section 5.3):
// one row per trip, six 8-byte integer columns in the order the queries add
// them. The NYC data the paper used is not shipped; the generator draws trip
// distances from a log-normal law (median 1.7 miles, sigma 0.84) whose tail
// beyond 30 miles holds about the paper's share of trips (511 K of 1.7 G,
// 0.03%); where the long trips fall is independent of row order, as in
// time-ordered trip records. Money is in cents, distance in 1/100 mile, so
// every sum is exact.
#include <array>
#include <cstdint>
#include <string>

namespace gpmx::apps::bam {

inline constexpr std::uint32_t taxi_columns = 6;
inline const std::array<std::string, taxi_columns> taxi_column_names = {"distance", "total", "surcharge",
                                                                        "hail_fee", "tolls",  "taxes"};
inline constexpr std::uint64_t long_trip = 3000;  // 30 miles, in 1/100 mile

// Column c of row r of the table drawn from `seed`.
std::uint64_t taxi_value(std::uint64_t seed, std::uint32_t c, std::uint64_t r);

// What query k (0..5) answers: Q0 counts the trips of at least 30 miles and
// sums their distance (scanning the distance column); Qk also sums columns
// 1..k (total, surcharge, hail fee, tolls, taxes) over those trips, reading
// them only there. Q5's answer is the dollars per mile of the long trips.
struct query_answer {
  std::uint64_t trips = 0;
  std::array<std::uint64_t, taxi_columns> sums{};  // sums[0]: distance
};
std::string describe(const query_answer& a, std::uint32_t query);

}  // namespace gpmx::apps::bam
