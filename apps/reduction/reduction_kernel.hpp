#pragma once
// SBRP Figure 3's reduction kernel, with native recovery: one launch sums
// the whole input; run again after a crash it skips every partial sum that
// was persisted and finishes the rest.
//
// Each thread first sums its own `per_thread` elements. The block then folds
// in iterations of halving stride s: threads [s, 2s) hold their final sum,
// persist it in their slot of `partial` and hand it over; thread tid < s adds
// the slot of thread tid + s. Thread 0's slot ends up holding the block's sum.
// The last block to finish adds every block's sum into `total`.
//
// Ordering, per style:
//   sbrp  — a hand-over is a block-scope prel on the thread's flag, read by
//           the partner's block-scope pacq (intra-block PMO); the block's sum
//           is published with a release at `final_release` scope (device:
//           Figure 3 line 24) and the final step pacq's each block's flag at
//           device scope (inter-block PMO);
//   epoch — a hand-over is gpm_persist then syncthreads; the block's sum is
//           gpm_persist'ed before the device-scope counter that picks the last
//           block (GPM's epoch barrier orders it before everything after).
// Recovery (SBRP §5.1): a thread whose slot is already persisted takes that
// value instead of recomputing its subtree, and still hands it over.
#include <cstdint>

#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/view.hpp"
#include "native/values.hpp"

namespace gpmx::apps::reduction {

// Volatile device-memory words the kernel synchronises on; all zero at launch.
struct sync_words {
  std::uint32_t* handed_over;      // blocks x threads: the thread's slot is persisted (block scope)
  std::uint32_t* block_done;       // blocks: the block's sum is persisted (final_release scope)
  std::uint32_t* blocks_finished;  // one counter: the block that brings it to `blocks` does the final step
};

struct kernel_args {
  pm::pm_span<std::uint64_t> input;    // elements
  // A copy of `input` in device memory, which the kernel reads instead when
  // it is not empty (as SBRP's reduction keeps its input); recovery still
  // has the input in PM.
  global_span<const std::uint64_t> device_input;
  pm::pm_span<std::uint64_t> partial;  // blocks x threads slots
  pm::pm_span<std::uint64_t> total;    // one word
  std::uint32_t per_thread;
  // 0: a thread sums its own `per_thread` consecutive elements; otherwise
  // the elements slot, slot + stride, ... (stride: every thread of the
  // grid), so a warp's loads are coalesced, as SBRP's kernel reads.
  std::uint64_t stride;
  pm::ordering order;
  // Scope of the release that publishes a block's sum to the final step.
  // Correct code uses device (the final step runs in another block).
  scope final_release;
  sync_words sync;
};

struct reduce_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const kernel_args& a) const {
    const std::uint32_t threads = t.block_dim().x;
    const std::uint32_t tid = t.thread_rank();
    const std::uint64_t slot = t.block_rank() * threads + tid;
    const bool sbrp = a.order == pm::ordering::sbrp;
    auto part = a.partial.bind(t);
    const std::uint64_t persisted = part[slot];
    const bool done = persisted != native::empty;  // Figure 3 line 3
    std::uint64_t sum = persisted;
    if (!done) {
      const std::uint64_t first = a.stride != 0 ? slot : slot * a.per_thread;
      const std::uint64_t step = a.stride != 0 ? a.stride : 1;
      sum = a.device_input.size() != 0 ? native::chunk_sum(t, a.device_input, first, a.per_thread, step)
                                       : native::chunk_sum(t, a.input, first, a.per_thread, step);
    }

    for (std::uint32_t s = threads / 2; s >= 1; s /= 2) {
      if (tid >= s && tid < 2 * s) {  // final: persist and hand over
        if (!done) part[slot] = sum;
        if (sbrp) {
          t.prel(scope::block, &a.sync.handed_over[slot], 1u);
          return;
        }
        if (!done) t.gpm_persist();
      }
      if (!sbrp) t.syncthreads();  // epoch: every thread meets every iteration
      if (tid < s) {
        if (sbrp) t.spin_wait([&] { return t.pacq(scope::block, &a.sync.handed_over[slot + s]) != 0u; });
        if (!done) sum += part[slot + s];
      }
    }
    if (tid == 0) publish_block_sum(t, a, slot, sum, done);
  }

 private:
  // Thread 0: the block's sum goes to its own slot; the last block to get
  // here reads every block's sum and persists the total.
  template <class Ctx>
  GPMX_HD void publish_block_sum(Ctx& t, const kernel_args& a, std::uint64_t slot, std::uint64_t sum,
                                 bool done) const {
    const bool sbrp = a.order == pm::ordering::sbrp;
    const std::uint64_t block = t.block_rank();
    auto part = a.partial.bind(t);
    if (!done) part[slot] = sum;
    if (sbrp) t.prel(a.final_release, &a.sync.block_done[block], 1u);  // Figure 3 line 24
    else if (!done) t.gpm_persist();
    const std::uint32_t blocks = t.grid_dim().x;
    const std::uint32_t before =
        t.atomic_add(a.sync.blocks_finished, 1u, memory_order::acq_rel, scope::device);
    if (before + 1 != blocks) return;

    const std::uint32_t threads = t.block_dim().x;
    std::uint64_t total = 0;
    for (std::uint32_t b = 0; b < blocks; ++b) {
      if (sbrp) t.spin_wait([&] { return t.pacq(scope::device, &a.sync.block_done[b]) != 0u; });
      total += part[std::uint64_t(b) * threads];
    }
    a.total.bind(t)[0] = total;
    if (sbrp) t.dfence();
    else t.gpm_persist();
  }
};

}  // namespace gpmx::apps::reduction
