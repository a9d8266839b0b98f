#pragma once
// CUDA's warp shuffle rules as the CUDA C++ Programming Guide states them
// (independent of the PTX formulation the executor implements).
#include <cstdint>

namespace gpmx::test {

inline unsigned ref_shfl_idx(unsigned lane, int src, int width) {
  return (lane / unsigned(width)) * unsigned(width) + unsigned(src) % unsigned(width);
}
inline unsigned ref_shfl_up(unsigned lane, unsigned delta, int width) {
  return lane % unsigned(width) >= delta ? lane - delta : lane;
}
inline unsigned ref_shfl_down(unsigned lane, unsigned delta, int width) {
  return lane % unsigned(width) + delta < unsigned(width) ? lane + delta : lane;
}
// xor may read earlier groups but not later ones.
inline unsigned ref_shfl_xor(unsigned lane, int lane_mask, int width) {
  const unsigned src = lane ^ unsigned(lane_mask);
  const unsigned group_end = (lane / unsigned(width) + 1) * unsigned(width);
  return src < group_end ? src : lane;
}

}  // namespace gpmx::test
