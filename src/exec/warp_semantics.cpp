#include "warp_semantics.hpp"

#include <bit>

namespace gpmx::cpu::detail {

unsigned shuffle_source(warp_op op, unsigned lane, int arg, int width) {
  // CUDA passes c = ((32 - width) << 8) | clamp, with clamp 0 for shfl_up and
  // 31 otherwise; PTX then derives the segment bounds from it.
  const unsigned segmask = (32u - unsigned(width)) & 31u;
  const unsigned clamp = op == warp_op::shfl_up ? 0u : 31u;
  const unsigned max_lane = (lane & segmask) | (clamp & ~segmask);
  const unsigned min_lane = lane & segmask;
  const unsigned b = unsigned(arg) & 31u;
  int j = int(lane);
  bool in_range = false;
  switch (op) {
    case warp_op::shfl_up:
      j = int(lane) - int(b);
      in_range = j >= int(max_lane);
      break;
    case warp_op::shfl_down:
      j = int(lane + b);
      in_range = j <= int(max_lane);
      break;
    case warp_op::shfl_xor:
      j = int(lane ^ b);
      in_range = j <= int(max_lane);
      break;
    case warp_op::shfl:
      j = int(min_lane | (b & ~segmask));
      in_range = j <= int(max_lane);
      break;
    default:
      break;
  }
  return in_range ? unsigned(j) : lane;
}

std::uint64_t warp_result(const warp_arrivals& a, unsigned lane) {
  std::uint32_t votes = 0;
  switch (a.op) {
    case warp_op::syncwarp:
      return 0;
    case warp_op::ballot:
    case warp_op::any:
    case warp_op::all:
      for (unsigned l = 0; l < 32; ++l)
        if ((a.mask >> l & 1u) && a.value[l] != 0) votes |= 1u << l;
      if (a.op == warp_op::ballot) return votes;
      if (a.op == warp_op::any) return votes != 0;
      return votes == a.mask;
    case warp_op::match_any:
      for (unsigned l = 0; l < 32; ++l)
        if ((a.mask >> l & 1u) && a.value[l] == a.value[lane]) votes |= 1u << l;
      return votes;
    case warp_op::shfl:
    case warp_op::shfl_up:
    case warp_op::shfl_down:
    case warp_op::shfl_xor: {
      const unsigned src = shuffle_source(a.op, lane, a.arg[lane], a.width[lane]);
      // Reading a lane outside the mask is undefined in CUDA; gpmx keeps the
      // caller's own value so the result is at least deterministic.
      return (a.mask >> src & 1u) ? a.value[src] : a.value[lane];
    }
  }
  return 0;
}

}  // namespace gpmx::cpu::detail
