#pragma once
// GPM's prefix sum (section 5.4, Figure 8) with native recovery: the input
// is cut into blocks of threads x per_thread elements (a thread owns a chunk
// of per_thread consecutive elements).
//   partial pass — each block writes the inclusive prefix sums of its own
//                  elements into `partial`;
//   final pass   — each block adds the sum of the blocks before it and
//                  writes the global inclusive prefix sums into `output`.
// Both passes write a block the same way (Figure 8): every thread but the
// last persists its chunk; the block joins; then the last thread persists its
// chunk, whose last element (the block's partial sum) goes last. So a block
// whose last element is persisted is whole, and a relaunch skips it
// (Figure 8 line 3) and recomputes only the others. Per style:
//   epoch — gpm_persist, syncthreads; the last thread persists its chunk
//           but the last element, gpm_persist, the last element, gpm_persist;
//   sbrp  — each thread prel's its block-scope flag; the last thread pacq's
//           every flag, writes its chunk, ofence, the last element, dfence.
#include <cstdint>

#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/view.hpp"
#include "native/values.hpp"

namespace gpmx::apps::prefix_sum {

inline constexpr std::uint32_t max_threads = 1024;

struct kernel_args {
  pm::pm_span<std::uint64_t> input, partial, output;  // elements each
  std::uint32_t per_thread;
  pm::ordering order;
  // Volatile device memory, blocks x threads, zero at launch: the thread's
  // chunk is persisted (sbrp's block-scope flags).
  std::uint32_t* chunk_persisted;
  // The seeded bug total-before-join: the last thread stores the block's
  // last element before the join, so before the others' chunks are persisted.
  bool total_before_join = false;
};

// Writes the calling thread's chunk of `dst` (elements first + j, value(j)
// called for j = 0, 1, ... in order) so that the block's last element is
// persisted after every other element of the block.
struct block_writer {
  template <class Ctx, class Value>
  GPMX_HD void operator()(Ctx& t, const kernel_args& a, pm::pm_span<std::uint64_t> dst, std::uint64_t first,
                          Value&& value) const {
    const std::uint32_t c = a.per_thread;
    const bool last = t.thread_rank() == t.block_dim().x - 1;
    auto out = dst.bind(t);
    const std::uint32_t body = last ? c - 1 : c;
    for (std::uint32_t j = 0; j < body; ++j) out[first + j] = value(j);
    const bool early = last && a.total_before_join;
    if (early) store_block_total(t, a, out, first + c - 1, value(c - 1));
    join(t, a, last);
    if (last && !early) store_block_total(t, a, out, first + c - 1, value(c - 1));
  }

 private:
  // Every thread but the last has persisted its chunk when the last thread
  // gets past this (Figure 8 line 12).
  template <class Ctx>
  GPMX_HD static void join(Ctx& t, const kernel_args& a, bool last) {
    std::uint32_t* flags = a.chunk_persisted + t.block_rank() * t.block_dim().x;
    if (a.order == pm::ordering::epoch) {
      if (!last) t.gpm_persist();
      t.syncthreads();
      return;
    }
    if (!last) {
      t.prel(scope::block, &flags[t.thread_rank()], 1u);
      return;
    }
    for (std::uint32_t u = 0; u + 1 < t.block_dim().x; ++u)
      t.spin_wait([&] { return t.pacq(scope::block, &flags[u]) != 0u; });
  }

  // The last thread: its chunk, then the block's last element (Figure 8
  // lines 15-16).
  template <class Ctx, class Out>
  GPMX_HD static void store_block_total(Ctx& t, const kernel_args& a, Out& out, std::uint64_t at,
                                        std::uint64_t total) {
    pm::order_persists(t, a.order);
    out[at] = total;
    if (a.order == pm::ordering::epoch) t.gpm_persist();
    else t.dfence();
  }
};

struct partial_sums_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const kernel_args& a) const {
    const std::uint32_t threads = t.block_dim().x, tid = t.thread_rank();
    const std::uint64_t base = t.block_rank() * threads * a.per_thread;
    const std::uint64_t first = base + std::uint64_t(tid) * a.per_thread;
    if (a.partial.bind(t)[base + std::uint64_t(threads) * a.per_thread - 1] != native::empty) return;
    // Each chunk's offset in the block: an exclusive scan of the chunk sums
    // in shared memory (volatile; nothing to persist).
    GPMX_SHARED(t, std::uint64_t, offset_words, max_threads);
    auto offsets = shared_span<std::uint64_t>(offset_words, max_threads).bind(t);
    offsets[tid] = native::chunk_sum(t, a.input, first, a.per_thread);
    t.syncthreads();
    if (tid == 0) {
      std::uint64_t running = 0;
      for (std::uint32_t u = 0; u < threads; ++u) {
        const std::uint64_t s = offsets[u];
        offsets[u] = running;
        running += s;
      }
    }
    t.syncthreads();
    std::uint64_t running = offsets[tid];
    const auto in = a.input.bind(t);
    block_writer{}(t, a, a.partial, first, [&](std::uint32_t j) { return running += in[first + j]; });
  }
};

struct final_pass_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const kernel_args& a) const {
    const std::uint32_t threads = t.block_dim().x, tid = t.thread_rank();
    const std::uint64_t span = std::uint64_t(threads) * a.per_thread;
    const std::uint64_t base = t.block_rank() * span;
    const std::uint64_t first = base + std::uint64_t(tid) * a.per_thread;
    if (a.output.bind(t)[base + span - 1] != native::empty) return;
    const auto part = a.partial.bind(t);
    // The sum of the blocks before this one: their last partial sums.
    GPMX_SHARED(t, std::uint64_t, block_offset_word, 1);
    auto block_offset = shared_span<std::uint64_t>(block_offset_word, 1).bind(t);
    if (tid == 0) {
      std::uint64_t s = 0;
      for (std::uint64_t b = 0; b < t.block_rank(); ++b) s += part[(b + 1) * span - 1];
      block_offset[0] = s;
    }
    t.syncthreads();
    const std::uint64_t offset = block_offset[0];
    block_writer{}(t, a, a.output, first, [&](std::uint32_t j) { return part[first + j] + offset; });
  }
};

}  // namespace gpmx::apps::prefix_sum
