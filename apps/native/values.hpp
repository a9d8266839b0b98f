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

// Sum of the n elements in[first + k * step], read through the thread's view
// (of PM, or of device memory).
template <class Ctx, class Span>
GPMX_HD std::uint64_t chunk_sum(Ctx& t, Span in, std::uint64_t first, std::uint32_t n, std::uint64_t step = 1) {
  const auto v = in.bind(t);
  std::uint64_t s = 0;
  for (std::uint32_t i = 0; i < n; ++i) s += v[first + i * step];
  return s;
}

}  // namespace gpmx::apps::native
