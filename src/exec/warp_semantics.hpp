#pragma once
// What each lane receives from a completed warp collective, as CUDA (PTX
// shfl.sync, vote.sync, match.sync) defines it. Pure: unit-tested directly.
#include <array>
#include <cstdint>

#include "gpmx/exec/cpu/block_state.hpp"

namespace gpmx::cpu::detail {

struct warp_arrivals {
  warp_op op = warp_op::syncwarp;
  std::uint32_t mask = 0;
  std::array<std::uint64_t, 32> value{};  // per lane: predicate or value bits
  std::array<int, 32> arg{};              // per lane: source lane, delta or lane mask
  std::array<int, 32> width{};            // per lane: shuffle segment width
};

// Result for `lane` (a member of a.mask).
std::uint64_t warp_result(const warp_arrivals& a, unsigned lane);

// The source lane a shuffle reads for `lane`, or `lane` itself when the PTX
// rule keeps the lane's own value.
unsigned shuffle_source(warp_op op, unsigned lane, int arg, int width);

}  // namespace gpmx::cpu::detail
