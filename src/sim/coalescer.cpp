#include "gpmx/sim/coalescer.hpp"

#include <fmt/format.h>

#include <bit>

#include "gpmx/support/error.hpp"

namespace gpmx::sim {

namespace {

// Adds `mask` to the request for `line` other than out[last] (the caller
// checked that one), appending one if the line is new.
void touch_other(std::uint64_t line, std::uint32_t mask, line_request* out, unsigned& n, unsigned& last) {
  for (unsigned i = 0; i < n; ++i)
    if (out[i].line_addr == line) {
      out[i].sector_mask |= mask;
      last = i;
      return;
    }
  out[n] = line_request{line, mask};
  last = n++;
}

// The previous lane's request first: neighbouring lanes usually share a
// line, so most lanes cost one comparison. `line` is never ~0 (a line's
// first byte), so out[0] starting as ~0 stands for "no request yet".
inline void touch(std::uint64_t line, std::uint32_t mask, line_request* out, unsigned& n, unsigned& last) {
  if (out[last].line_addr == line) {
    out[last].sector_mask |= mask;
    return;
  }
  touch_other(line, mask, out, n, last);
}

[[noreturn]] void throw_wider_than_a_line(std::uint32_t bytes, std::uint32_t line_bytes) {
  throw gpmx::error(error_code::usage,
                    fmt::format("coalesce: a lane accesses {} bytes, more than a line ({})", bytes, line_bytes));
}

// Whether a whole warp's lanes access `bytes` each, one after another from
// lane 0's address: the common loop over an array, whose requests follow
// from its first and last byte alone.
bool contiguous_warp(std::uint32_t active_mask, const lane_access* lanes, std::uint32_t line_bytes) {
  if (active_mask != ~0u) return false;
  const std::uint64_t first = lanes[0].addr;
  const std::uint32_t bytes = lanes[0].bytes;
  if (bytes == 0 || bytes > line_bytes) return false;  // the lane loop skips or refuses those
  std::uint64_t differs = 0, addr = first;
  for (unsigned l = 1; l < warp_lanes; ++l) {
    addr += bytes;
    differs |= (lanes[l].addr ^ addr) | (lanes[l].bytes ^ bytes);
  }
  return differs == 0 && first + warp_lanes * std::uint64_t(bytes) > first;  // and no wrap past the top
}

// The requests of [first, last]: each line's sectors that the range covers,
// lines in ascending order (as the lanes first touch them).
unsigned coalesce_range(std::uint64_t first, std::uint64_t last, std::uint32_t line_bytes, unsigned sector_shift,
                        line_request* out) {
  const std::uint64_t line_mask = ~std::uint64_t(line_bytes - 1);
  unsigned n = 0;
  for (std::uint64_t line = first & line_mask;; line += line_bytes) {
    const std::uint32_t from = line < first ? std::uint32_t(first - line) : 0;
    const std::uint32_t to = last - line < line_bytes ? std::uint32_t(last - line) : line_bytes - 1;
    out[n++] = line_request{line, sector_span(from, to, sector_shift)};
    if (last - line < line_bytes) return n;
  }
}

}  // namespace

unsigned coalesce(std::uint32_t active_mask, const lane_access* lanes, std::uint32_t line_bytes,
                  std::uint32_t sector_bytes, line_request* out) {
  const std::uint64_t line_mask = ~std::uint64_t(line_bytes - 1);
  const unsigned sector_shift = unsigned(std::countr_zero(sector_bytes));
  if (contiguous_warp(active_mask, lanes, line_bytes))
    return coalesce_range(lanes[0].addr, lanes[0].addr + warp_lanes * std::uint64_t(lanes[0].bytes) - 1, line_bytes,
                          sector_shift, out);
  unsigned n = 0, last = 0;
  out[0].line_addr = ~std::uint64_t(0);
  for (std::uint32_t m = active_mask; m != 0; m &= m - 1) {
    const lane_access& a = lanes[std::countr_zero(m)];
    if (a.bytes - 1 >= line_bytes) {  // 0 (no part) or wider than a line: one test for both
      if (a.bytes == 0) continue;
      throw_wider_than_a_line(a.bytes, line_bytes);
    }
    const std::uint64_t first = a.addr, end = a.addr + a.bytes - 1;
    const std::uint64_t line = first & line_mask, end_line = end & line_mask;
    if (line == end_line) {
      touch(line, sector_span(std::uint32_t(first - line), std::uint32_t(end - line), sector_shift), out, n, last);
    } else {
      touch(line, sector_span(std::uint32_t(first - line), line_bytes - 1, sector_shift), out, n, last);
      touch(end_line, sector_span(0, std::uint32_t(end - end_line), sector_shift), out, n, last);
    }
  }
  return n;
}

std::vector<line_request> coalesce(std::uint32_t active_mask, const lane_access* lanes, std::uint32_t line_bytes,
                                   std::uint32_t sector_bytes) {
  line_request buf[max_line_requests];
  unsigned n = coalesce(active_mask, lanes, line_bytes, sector_bytes, buf);
  return std::vector<line_request>(buf, buf + n);
}

}  // namespace gpmx::sim
