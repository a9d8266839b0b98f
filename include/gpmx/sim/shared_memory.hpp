#pragma once
// Shared memory: banks of bank_bytes-wide words (32 x 4 bytes). A word lives
// in bank (address / bank_bytes) % banks. Lanes that read or write the same
// word are served together (a broadcast); distinct words in one bank are
// served one after another. The conflict degree of a warp's access is the
// largest number of distinct words any bank holds among the accessed
// bytes, and the access takes latency + (degree - 1) cycles. A lane's access
// wider than a word touches each word it covers, so 32 consecutive 8-byte
// accesses are 2-way (two passes, as the hardware splits them).
// Read-modify-write atomics are the exception: lanes updating the same word
// are served one after another (same_word_serializes).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include <fmt/format.h>

#include "gpmx/sim/coalescer.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx::sim {

inline constexpr unsigned max_shared_words_per_lane = 8;

// The conflict degree (0 when no active lane accesses a byte). banks <= 64,
// bank_bytes a power of two; a lane may cover at most 8 words (throws
// gpmx::error, error_code::usage). Allocates nothing.
inline std::uint32_t bank_conflict_degree(std::uint32_t active, const lane_access* lanes, std::uint32_t banks,
                                          std::uint32_t bank_bytes, bool same_word_serializes = false) {
  std::array<std::uint64_t, warp_lanes * max_shared_words_per_lane> words;
  unsigned n = 0;
  const unsigned shift = unsigned(std::countr_zero(bank_bytes));
  for (std::uint32_t m = active; m != 0; m &= m - 1) {
    const lane_access& a = lanes[std::countr_zero(m)];
    if (a.bytes == 0) continue;
    const std::uint64_t first = a.addr >> shift, last = (a.addr + a.bytes - 1) >> shift;
    if (last - first >= max_shared_words_per_lane)
      throw gpmx::error(error_code::usage,
                        fmt::format("shared memory access of {} bytes covers more than {} banks' words", a.bytes,
                                    max_shared_words_per_lane));
    for (std::uint64_t w = first; w <= last; ++w) words[n++] = w;
  }
  if (n == 0) return 0;
  std::sort(words.begin(), words.begin() + n);
  std::array<std::uint32_t, 64> per_bank{};
  std::uint32_t degree = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (!same_word_serializes && i != 0 && words[i] == words[i - 1]) continue;
    std::uint32_t c = ++per_bank[words[i] % banks];
    degree = std::max(degree, c);
  }
  return degree;
}

// Cycles a shared access takes: latency + (degree - 1), degree at least 1.
constexpr std::uint32_t shared_access_cycles(std::uint32_t latency, std::uint32_t degree) {
  return latency + (degree > 1 ? degree - 1 : 0);
}

}  // namespace gpmx::sim
