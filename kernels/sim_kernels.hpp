#pragma once
// Kernels the timed mode's benchmark and validation tests share.
#include <cstdint>

#include "gpmx/exec/mem_view.hpp"

namespace gpmx::sim_kernels {

// Each thread reads `iterations` words, consecutive threads consecutive
// words, nothing twice: every warp load is one coalesced line that misses
// every cache. out[i] = the thread's sum.
struct stream_sum {
  void operator()(auto& t, global_span<const std::uint32_t> in, std::uint32_t iterations,
                  global_span<std::uint32_t> out) const {
    auto a = in.bind(t);
    const std::uint64_t stride = t.global_count();
    std::uint32_t sum = 0;
    for (std::uint32_t i = 0; i < iterations; ++i) sum += a[i * stride + t.global_id()];
    out.bind(t)[t.global_id()] = sum;
  }
};

// Each thread copies `iterations` words, laid out as stream_sum reads them:
// loads and stores alternate, every warp access one coalesced line.
struct stream_copy {
  void operator()(auto& t, global_span<const std::uint32_t> in, std::uint32_t iterations,
                  global_span<std::uint32_t> out) const {
    auto a = in.bind(t);
    auto b = out.bind(t);
    const std::uint64_t stride = t.global_count();
    for (std::uint32_t i = 0; i < iterations; ++i) b[i * stride + t.global_id()] = a[i * stride + t.global_id()];
  }
};

}  // namespace gpmx::sim_kernels
