#pragma once
// Executor kernels written once for every user: the cpu tests and the CUDA
// tests run them on both back ends and compare, and the executor benchmarks
// time some of them. Each is a functor whose call operator takes the thread
// context as a template, so nvcc instantiates it with gpmx::cuda::thread_ctx
// and the host compiler with gpmx::cpu::thread_ctx.
#include <cstdint>

#include "gpmx/exec/dim3.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"

namespace gpmx::test_kernels {

GPMX_HD inline std::uint32_t mix(std::uint64_t i) {
  std::uint64_t z = i * 0x9e3779b97f4a7c15ull;
  return std::uint32_t(z >> 32) ^ std::uint32_t(z);
}

// out[global id] = mix(global id), for grids of any shape.
struct fill {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t* out, std::uint64_t n) const {
    const std::uint64_t i = t.global_id();
    if (i < n) out[i] = mix(i);
  }
};

// The fill benchmark's per-element work: a cheap hash of the index.
GPMX_HD inline std::uint32_t work(std::uint64_t i) {
  std::uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull;
  z ^= z >> 29;
  return std::uint32_t(z * 0xbf58476d1ce4e5b9ull >> 32);
}

// a[i] = work(i) with a grid that covers a exactly (no bounds check), so the
// benchmark times the executor and the work, nothing else.
struct fill_unchecked {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t* a) const {
    const std::uint64_t i = t.global_id();
    a[i] = work(i);
  }
};

// Records every index a thread sees, to check 3-D numbering.
struct indices {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t* out) const {
    const std::uint64_t i = t.global_id();
    const dim3 ti = t.thread_idx(), bi = t.block_idx();
    out[i * 8 + 0] = ti.x;
    out[i * 8 + 1] = ti.y;
    out[i * 8 + 2] = ti.z;
    out[i * 8 + 3] = bi.x;
    out[i * 8 + 4] = bi.y;
    out[i * 8 + 5] = bi.z;
    out[i * 8 + 6] = t.warp_id();
    out[i * 8 + 7] = t.lane_id();
  }
};

// Tree reduction of a block's slice of `in` in `partial` (block-sized
// shared array): one barrier per level. Power-of-two blocks up to 1024.
template <class Ctx>
GPMX_HD void tree_sum(Ctx& t, std::uint64_t* partial, const std::uint32_t* in, std::uint64_t* out) {
  const std::uint32_t r = t.thread_rank();
  const std::uint32_t n = std::uint32_t(t.block_dim().count());
  partial[r] = in[t.global_id()];
  t.syncthreads();
  for (std::uint32_t stride = n / 2; stride > 0; stride /= 2) {
    if (r < stride) partial[r] += partial[r + stride];
    t.syncthreads();
  }
  if (r == 0) out[t.block_rank()] = partial[0];
}

// tree_sum through static shared memory.
struct block_sum {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const std::uint32_t* in, std::uint64_t* out) const {
    GPMX_SHARED(t, std::uint64_t, partial, 1024);
    tree_sum(t, partial, in, out);
  }
};

// tree_sum through dynamic shared memory.
struct block_sum_dynamic {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const std::uint32_t* in, std::uint64_t* out) const {
    tree_sum(t, t.template dynamic_shared<std::uint64_t>(), in, out);
  }
};

// 1024-thread block sum with exactly 10 barriers (one after the load, one
// after each of the nine halvings down to two partial sums): the barrier
// benchmark divides its time by that count.
struct block_sum_1024 {
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

// Barrier reductions: per block, count/and/or of pred = (rank % m == 0).
struct barrier_votes {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t m, int* out) const {
    const int pred = t.thread_rank() % m == 0;
    const int c = t.syncthreads_count(pred);
    const int a = t.syncthreads_and(pred);
    const int o = t.syncthreads_or(pred);
    if (t.thread_rank() == 0) {
      out[t.block_rank() * 3 + 0] = c;
      out[t.block_rank() * 3 + 1] = a;
      out[t.block_rank() * 3 + 2] = o;
    }
  }
};

// Threads with rank >= live exit first; the rest meet at barriers, which
// count only threads that have not exited.
struct barrier_after_exit {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t live, int* out) const {
    if (t.thread_rank() >= live) return;
    const int c = t.syncthreads_count(1);
    if (t.thread_rank() == 0) out[t.block_rank()] = c;
  }
};

// Every warp operation under one mask: lanes in `mask` take part, the others
// skip. Output per thread: 10 words.
struct warp_ops {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t mask, int width, std::uint32_t* out) const {
    const std::uint32_t lane = t.lane_id();
    std::uint32_t* o = out + t.global_id() * 10;
    if (!(mask >> lane & 1u)) return;
    const std::uint32_t v = lane * 7u + 3u + std::uint32_t(t.warp_id()) * 1000u;
    t.syncwarp(mask);
    o[0] = t.ballot(mask, lane % 3 == 0);
    o[1] = t.any(mask, lane == 5);
    o[2] = t.all(mask, lane < 30);
    o[3] = t.match_any(mask, lane % 4);
    o[4] = t.shfl(mask, v, int((lane * 5u + 1u) % 32u), width);
    o[5] = t.shfl_up(mask, v, 3, width);
    o[6] = t.shfl_down(mask, v, 2, width);
    o[7] = t.shfl_xor(mask, v, 9, width);
    o[8] = std::uint32_t(t.shfl_down(mask, std::uint64_t(v) << 33 | 1u, 1, width) >> 33);
    o[9] = std::uint32_t(t.shfl_xor(mask, float(v), 1, width));  // exact: v < 2^24
  }
};

// Lanes >= live exit; the rest ask activemask() and vote with it.
struct warp_after_exit {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t live, std::uint32_t* out) const {
    const std::uint32_t lane = t.lane_id();
    if (lane >= live) return;
    const std::uint32_t m = t.activemask();
    out[t.global_id() * 3 + 0] = m;
    out[t.global_id() * 3 + 1] = t.ballot(m, lane % 2);
    out[t.global_id() * 3 + 2] = t.shfl_down(m, lane, 1);
  }
};

// Warp-shuffle sum of a block's values: 5 shuffles per lane.
struct warp_sum {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const std::uint32_t* in, std::uint64_t* out) const {
    std::uint64_t v = in[t.global_id()];
    for (int d = 16; d > 0; d /= 2) v += t.shfl_down(0xffffffffu, v, unsigned(d));
    if (t.lane_id() == 0) out[t.global_id() / 32] = v;
  }
};

// Every atomic under contention: all threads hit the same few words.
struct atomics_contention {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint64_t* words, std::uint32_t* inc_word) const {
    const std::uint64_t i = t.global_id();
    t.atomic_add(&words[0], std::uint64_t(1));
    t.atomic_sub(&words[1], std::uint64_t(2));
    t.atomic_max(&words[2], i);
    t.atomic_min(&words[3], i + 5);
    t.atomic_or(&words[4], std::uint64_t(1) << (i % 64));
    t.atomic_xor(&words[5], i);
    t.atomic_and(&words[6], ~(std::uint64_t(1) << (i % 64)));
    std::uint64_t old = t.atomic_load(&words[7]);
    for (;;) {  // CAS loop adding i
      const std::uint64_t seen = t.atomic_cas(&words[7], old, old + i);
      if (seen == old) break;
      old = seen;
    }
    t.atomic_exch(&words[8], std::uint64_t(42));
    t.atomic_inc(&inc_word[0], 99u);
    t.atomic_dec(&inc_word[1], 99u);
    t.atomic_add(&words[9], i, memory_order::acq_rel, scope::system);
    t.fence(scope::device);
  }
};

// Message passing across blocks: block b waits for block b-1's flag, then
// sets its own; out[b] = the value it read from b-1 plus one.
struct flag_chain {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t* flags, std::uint32_t* out) const {
    const std::uint64_t b = t.block_rank();
    if (t.thread_rank() != 0) return;
    std::uint32_t prev = 0;
    if (b > 0) {
      t.spin_wait([&] { return t.atomic_load(&flags[b - 1], memory_order::acquire) != 0; });
      prev = out[b - 1];
    }
    out[b] = prev + 1;
    t.atomic_store(&flags[b], 1u, memory_order::release);
  }
};

// Within a block: thread 0 waits on a flag that the block's last thread sets.
struct flag_in_block {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t* flag, std::uint32_t* out) const {
    const std::uint32_t r = t.thread_rank(), last = std::uint32_t(t.block_dim().count()) - 1;
    if (r == 0) {
      t.spin_wait([&] { return t.atomic_load(flag, memory_order::acquire) == 1u; });
      out[0] = out[1] + 1;
    } else if (r == last) {
      out[1] = 41;
      t.atomic_store(flag, 1u, memory_order::release);
    }
  }
};

}  // namespace gpmx::test_kernels
