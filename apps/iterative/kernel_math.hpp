#pragma once
// Deterministic pseudo-random numbers for the checkpointing workloads'
// inputs and kernels: a pure function of a key, so the same value comes out
// on any thread, in any run, on the host and in a kernel.
#include <cstdint>

#include "gpmx/exec/portability.hpp"

namespace gpmx::apps::iterative {

GPMX_HD inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) from (a, b).
GPMX_HD inline float unit_float(std::uint64_t a, std::uint64_t b) {
  return float(mix64(a * 0x2545f4914f6cdd1dull ^ mix64(b)) >> 40) * (1.0f / 16777216.0f);
}

}  // namespace gpmx::apps::iterative
