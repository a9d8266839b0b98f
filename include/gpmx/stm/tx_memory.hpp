#pragma once
// What the transactions of one launch share, in device memory (kernel
// vectors on the cpu executor): the visible copy of the data words, one
// ownership record per word, each committer's status, the sequence counter,
// and what the durable fence and the statistics read. Kernel code.
#include <atomic>
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/portability.hpp"

namespace gpmx::stm {

// A committer's status word: (incarnation << 2) | state, the incarnation
// counting the committer's attempts. The status protocol
// (docs/transactions.md): only the owner moves idle -> active ->
// committing -> idle and active/aborted -> idle, starting a new
// incarnation at each begin; a pre-empter moves one incarnation from
// active to aborted, and steals an orec only if that same incarnation
// still holds it (orec words carry the incarnation), so a transaction that
// reached committing keeps every orec it holds, and an abort aimed at an
// earlier attempt never lets a later one be robbed.
enum tx_status : std::uint32_t { tx_idle = 0, tx_active = 1, tx_committing = 2, tx_aborted = 3 };

// Per-block statistics, one row of these per block.
enum tx_counter : std::uint32_t {
  count_commits,        // transactions committed
  count_aborts,         // attempts that aborted (pre-empted or gave way)
  count_preemptions,    // orecs stolen from a lower-priority owner
  count_direct,         // commits persisted by the committer itself
  count_ring,           // commits appended to the block's persistence buffer
  count_ring_full,      // appends that waited for room in the buffer
  count_batches,        // helper-warp drains
  count_drained,        // entries the helper warp wrote to the log
  count_log_entries,    // entries committers wrote to the log themselves
  count_occupancy_sum,  // sum over drains of the buffer's occupied entries
  count_log_room_waits, // appends that waited for the truncator to reclaim room in a log ring
  tx_counter_count
};
// Buffer occupancy at each drain, in twentieths of the capacity (0-5%, ...).
inline constexpr std::uint32_t occupancy_buckets = 20;
inline constexpr std::uint32_t counters_per_block = tx_counter_count + occupancy_buckets;

// Records per chunk of the durable fence's counts: a fence far behind
// skips a chunk whose records are all durable with one load, so catching
// up over n records costs about n / durable_chunk + durable_chunk loads,
// not a step per record (on a GPU, a million waiters advancing one shared
// prefix a record at a time took 9 s for a 7 ms kernel).
inline constexpr std::uint32_t durable_chunk = 1024;
// Words of tx_shared::durable for `capacity` sequence numbers.
GPMX_HD constexpr std::uint64_t durable_words(std::uint32_t capacity) {
  return std::uint64_t(capacity) + (std::uint64_t(capacity) + durable_chunk - 1) / durable_chunk;
}

struct tx_shared {
  std::uint32_t* data = nullptr;    // the words (visible copy)
  std::uint32_t words = 0;
  // Per word: 0 free, else (owner's incarnation << 32) | (owner's id + 1):
  // lock, owner and attempt in one word, read and swapped at once.
  std::uint64_t* orecs = nullptr;
  std::uint32_t* status = nullptr;  // per committer id: a tx_status
  std::uint32_t* seq = nullptr;     // the last sequence number taken
  // Durable fence: durable[s - first_seq] is set once record s is durable;
  // every sequence number <= *persisted_prefix is. The array holds
  // durable_words(seq_capacity) words: the flags, then per chunk of
  // durable_chunk records the count of those durable (durability.hpp).
  std::uint32_t* durable = nullptr;
  std::uint32_t first_seq = 1;
  std::uint32_t seq_capacity = 0;
  std::uint32_t* persisted_prefix = nullptr;
  // Adaptive switching: commits go through the helper warp's buffer while nonzero.
  std::uint32_t* helpers_on = nullptr;
  std::uint64_t* counters = nullptr;  // counters_per_block per block
  // Where a host monitor reads persisted entries while a GPU kernel runs
  // (null: it reads `counters`). Per block, count_drained and
  // count_log_entries as of their last crossing of a multiple of
  // publish_every: host-visible memory, so the monitor's polling moves no
  // page under the counters' atomics; stores only every publish_every
  // entries, since each crosses PCIe.
  std::uint64_t* published = nullptr;  // published_per_block per block
};
inline constexpr std::uint32_t published_per_block = 2;  // drained, log entries
inline constexpr std::uint64_t publish_every = 64;

// Device-memory words that a pre-empted transaction may still read while
// their new owner writes them (a zombie's read, thrown away): relaxed
// atomics on the host, so the race is defined there; plain volatile
// accesses on the GPU. Each reports the access to the context.
template <class Ctx>
GPMX_HD std::uint32_t load_word(Ctx& t, const std::uint32_t* p) {
  t.record_load(mem_space::global, p, sizeof(std::uint32_t));
#if defined(__CUDA_ARCH__)
  return *const_cast<const volatile std::uint32_t*>(p);
#else
  return std::atomic_ref<std::uint32_t>(*const_cast<std::uint32_t*>(p)).load(std::memory_order_relaxed);
#endif
}
template <class Ctx>
GPMX_HD void store_word(Ctx& t, std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  *const_cast<volatile std::uint32_t*>(p) = v;
#else
  std::atomic_ref<std::uint32_t>(*p).store(v, std::memory_order_relaxed);
#endif
  t.record_store(mem_space::global, p, sizeof(std::uint32_t));
}

template <class Ctx>
GPMX_HD void count(Ctx& t, const tx_shared& s, tx_counter c, std::uint64_t n = 1) {
  if (s.counters == nullptr) return;
  const std::uint64_t before =
      t.atomic_add(&s.counters[t.block_rank() * counters_per_block + c], n, memory_order::relaxed, scope::device);
  if (s.published == nullptr || (c != count_drained && c != count_log_entries)) return;
  const std::uint64_t after = before + n;
  // Stores from two crossings may land out of order: the monitor keeps the
  // largest value it has seen.
  if (after / publish_every != before / publish_every)
    t.atomic_store(&s.published[t.block_rank() * published_per_block + (c == count_drained ? 0 : 1)], after,
                   memory_order::relaxed, scope::system);
}

}  // namespace gpmx::stm
