#pragma once
// Values the native-persistence kernels share (kernel code: GPMX_HD only).
//
// Every input value lies in [1, 2^32), so every sum a kernel persists is at
// least 1: a PM word still holding 0 (what a new region holds) was never
// persisted, and recovery recomputes it.
#include <cstdint>

#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/view.hpp"

namespace gpmx::apps::native {

inline constexpr std::uint64_t empty = 0;

// Element i of the input generated from seed: odd, below 2^32.
GPMX_HD inline std::uint64_t input_value(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t k = seed * 0x9e3779b97f4a7c15ull + i + 1;
  k ^= k >> 31;
  k *= 0xbf58476d1ce4e5b9ull;
  k ^= k >> 29;
  return (k & 0xffffffffull) | 1;
}

// Sum of in[first, first + n), read through the thread's view.
template <class Ctx>
GPMX_HD std::uint64_t chunk_sum(Ctx& t, pm::pm_span<std::uint64_t> in, std::uint64_t first, std::uint32_t n) {
  const auto v = in.bind(t);
  std::uint64_t s = 0;
  for (std::uint32_t i = 0; i < n; ++i) s += v[first + i];
  return s;
}

}  // namespace gpmx::apps::native
