#pragma once
// The coalescer: a warp's lane accesses become one request per distinct
// cache line touched, in the order the lanes (0 to 31) first touch them,
// each with the mask of the line's sectors touched. An access that crosses a
// line boundary touches both lines.
#include <array>
#include <cstdint>
#include <vector>

namespace gpmx::sim {

inline constexpr unsigned warp_lanes = 32;

struct lane_access {
  std::uint64_t addr = 0;
  std::uint32_t bytes = 0;  // 0: the lane takes no part, even when active
};

struct line_request {
  std::uint64_t line_addr = 0;     // the line's first byte
  std::uint32_t sector_mask = 0;   // bit i: sector i of the line
  friend bool operator==(const line_request&, const line_request&) = default;
};

// At most two lines per lane.
inline constexpr unsigned max_line_requests = 2 * warp_lanes;

// Writes the requests to `out` (room for max_line_requests) and returns
// their count. line_bytes and sector_bytes are powers of two with at most 32
// sectors per line; a lane's bytes must not exceed line_bytes (throws
// gpmx::error with error_code::usage otherwise). Allocates nothing.
unsigned coalesce(std::uint32_t active_mask, const lane_access* lanes, std::uint32_t line_bytes,
                  std::uint32_t sector_bytes, line_request* out);

// The same, into a vector (tests, tools).
std::vector<line_request> coalesce(std::uint32_t active_mask, const lane_access* lanes, std::uint32_t line_bytes,
                                   std::uint32_t sector_bytes);

// The mask of the sectors [first_byte, last_byte] (offsets in one line) touch.
constexpr std::uint32_t sector_span(std::uint32_t first_byte, std::uint32_t last_byte, unsigned sector_shift) {
  // Bits a to b. For b = 31, 2u << b wraps to 0 and the difference is
  // every bit from a up: no branch.
  const unsigned a = first_byte >> sector_shift, b = last_byte >> sector_shift;
  return (2u << b) - (1u << a);
}

}  // namespace gpmx::sim
