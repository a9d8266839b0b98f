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

// Warps in pairs: in each of `rounds` rounds the even warp declares `work`
// instructions and publishes the round on its flag (one atomic store per
// lane); the odd warp's lanes spin until the partner's flag shows the round
// (each try an atomic load at the L2). seen[i] = the last round an odd
// warp's thread saw, `rounds` when every spin ended.
struct flag_pairs {
  void operator()(auto& t, std::uint32_t* flags, std::uint32_t rounds, std::uint32_t work,
                  global_span<std::uint32_t> seen) const {
    const std::uint64_t warp = t.global_id() / 32;
    std::uint32_t* flag = &flags[(warp / 2) * 32 + t.lane_id()];
    std::uint32_t last = 0;
    for (std::uint32_t r = 1; r <= rounds; ++r) {
      if (warp % 2 == 0) {
        t.work(work);
        t.atomic_store(flag, r);
      } else {
        t.spin_wait([&] { return (last = t.atomic_load(flag)) >= r; });
      }
    }
    seen.bind(t)[t.global_id()] = warp % 2 == 0 ? rounds : last;
  }
};

}  // namespace gpmx::sim_kernels
