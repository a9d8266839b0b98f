#pragma once
// SBRP's scan (section 7.1): the inclusive scan of many arrays, one block
// per array, computed in passes over PM with native recovery. A thread owns
// `per_thread` consecutive elements (a chunk) of its block's array.
//   pass 0:       each thread scans its chunk of the input into buffer 0;
//   pass k >= 1:  Hillis-Steele over chunks with distance d = 2^(k-1): a
//                 thread adds the last element of chunk tid - d (another
//                 thread's output of pass k-1) to each of its elements.
// 1 + log2(threads) passes; pass k writes buffer k % 2 (ping, pong) and
// reads the other, so the input is never overwritten.
//
// After every pass a join: every thread's part of the pass is persisted,
// then thread 0 persists the array's progress marker (passes completed),
// and only then may any thread start the next pass, which overwrites the
// buffer of pass k-1. Per style:
//   sbrp  — each thread prel's its block-scope flag; thread 0 pacq's every
//           flag, persists the marker and prel's the block's marker flag,
//           which the others pacq (intra-block PMO through block scope);
//   epoch — gpm_persist, syncthreads, thread 0 persists the marker with
//           gpm_persist, syncthreads.
// Recovery: the kernel starts each array at the pass its marker names; the
// buffer of the pass before is whole.
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/view.hpp"

namespace gpmx::apps::scan {

// Passes of a scan with `threads` (a power of two) threads per array.
GPMX_HD inline std::uint32_t passes_for(std::uint32_t threads) {
  std::uint32_t p = 1;
  for (std::uint32_t d = 1; d < threads; d *= 2) ++p;
  return p;
}

// Volatile device-memory words; all zero at launch. Values are pass numbers
// (k + 1 once pass k is done), so they never need resetting within a launch.
struct sync_words {
  std::uint32_t* pass_done;  // arrays x threads: the thread's part of the pass is persisted
  std::uint32_t* marked;     // arrays: the array's marker says the pass is complete
};

struct kernel_args {
  pm::pm_span<std::uint64_t> input;     // arrays x threads x per_thread
  pm::pm_span<std::uint64_t> buffer[2]; // ping, pong: the output of pass k is buffer[k % 2]
  pm::pm_span<std::uint64_t> progress;  // arrays: passes completed
  std::uint32_t per_thread;
  pm::ordering order;
  sync_words sync;
  // The seeded bug plain-acquire-join (sbrp): thread 0 waits for the
  // threads' flags with ordinary acquire loads instead of pacq, which
  // synchronise execution but order no persists.
  bool plain_acquire_join = false;
};

struct scan_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const kernel_args& a) const {
    const std::uint32_t passes = passes_for(t.block_dim().x);
    const std::uint32_t start = std::uint32_t(a.progress.bind(t)[t.block_rank()]);
    for (std::uint32_t k = start; k < passes; ++k) {
      run_pass(t, a, k);
      join(t, a, k);
    }
  }

 private:
  template <class Ctx>
  GPMX_HD void run_pass(Ctx& t, const kernel_args& a, std::uint32_t k) const {
    const std::uint32_t c = a.per_thread;
    const std::uint32_t tid = t.thread_rank();
    const std::uint64_t first = (t.block_rank() * t.block_dim().x + tid) * c;
    auto dst = a.buffer[k % 2].bind(t);
    if (k == 0) {
      const auto in = a.input.bind(t);
      std::uint64_t running = 0;
      for (std::uint32_t j = 0; j < c; ++j) dst[first + j] = running += in[first + j];
      return;
    }
    const auto src = a.buffer[(k - 1) % 2].bind(t);
    const std::uint32_t d = 1u << (k - 1);
    const std::uint64_t add = tid >= d ? std::uint64_t(src[first - std::uint64_t(d) * c + c - 1]) : 0;
    for (std::uint32_t j = 0; j < c; ++j) dst[first + j] = src[first + j] + add;
  }

  // Pass k is persisted by every thread of the block before the marker says
  // so, and the marker before anyone starts pass k + 1.
  template <class Ctx>
  GPMX_HD void join(Ctx& t, const kernel_args& a, std::uint32_t k) const {
    const std::uint32_t threads = t.block_dim().x;
    const std::uint32_t tid = t.thread_rank();
    const std::uint64_t b = t.block_rank();
    const std::uint32_t pass = k + 1;
    auto progress = a.progress.bind(t);
    if (a.order == pm::ordering::epoch) {
      t.gpm_persist();
      t.syncthreads();
      if (tid == 0) {
        progress[b] = pass;
        t.gpm_persist();
      }
      t.syncthreads();
      return;
    }
    std::uint32_t* done = a.sync.pass_done + b * threads;
    t.prel(scope::block, &done[tid], pass);
    if (tid == 0) {
      for (std::uint32_t u = 0; u < threads; ++u)
        t.spin_wait([&] {
          return (a.plain_acquire_join ? t.atomic_load(&done[u], memory_order::acquire, scope::block)
                                       : t.pacq(scope::block, &done[u])) >= pass;
        });
      progress[b] = pass;
      t.prel(scope::block, &a.sync.marked[b], pass);
    } else {
      t.spin_wait([&] { return t.pacq(scope::block, &a.sync.marked[b]) >= pass; });
    }
  }
};

}  // namespace gpmx::apps::scan
