#pragma once
// The kernels the executor benchmarks time (GPMX_HD: they compile for CUDA too).
#include <cstdint>

#include "gpmx/exec/portability.hpp"

namespace gpmx::bench {

GPMX_HD inline std::uint32_t work(std::uint64_t i) {
  std::uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull;
  z ^= z >> 29;
  return std::uint32_t(z * 0xbf58476d1ce4e5b9ull >> 32);
}

// a[i] = f(i) with a grid that covers a exactly (no bounds check).
struct fill_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t* a) const {
    const std::uint64_t i = t.global_id();
    a[i] = work(i);
  }
};

// 1024-thread block sum with exactly 10 barriers: one after the load, one
// after each of the nine halvings down to two partial sums.
struct reduce_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const std::uint32_t* in, std::uint64_t* out) const {
    GPMX_SHARED(t, std::uint64_t, s, 1024);
    const std::uint32_t r = t.thread_rank();
    s[r] = in[t.global_id()];
    t.syncthreads();
    for (std::uint32_t stride = 512; stride > 1; stride /= 2) {
      if (r < stride) s[r] += s[r + stride];
      t.syncthreads();
    }
    if (r == 0) out[t.block_rank()] = s[0] + s[1];
  }
};

// Warp sum by shfl_down: five shuffles per lane.
struct shuffle_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const std::uint32_t* in, std::uint64_t* out) const {
    std::uint64_t v = in[t.global_id()];
    for (unsigned d = 16; d > 0; d /= 2) v += t.shfl_down(0xffffffffu, v, d);
    if (t.lane_id() == 0) out[t.global_id() / 32] = v;
  }
};

}  // namespace gpmx::bench
