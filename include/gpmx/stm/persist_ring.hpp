#pragma once
// The helper-warp persistence of the helper-warp paper (kernel code): one
// ring buffer of log entries per block, in shared memory. A committer
// reserves room with one atomic add on the tail, fills its entries, sets
// each entry's dirty bit (its kind: record entry or mark) and returns,
// releasing its orecs: durability no longer holds the orecs. One helper
// warp per block drains the ring in order, 32 entries at a time, stopping
// at the first entry whose dirty bit is not set: the lanes write their
// entries contiguously to the block's log stream (coalesced) and make them
// durable, then write the batch's marks after that persist fence and make
// those durable, then clear the dirty bits and move the head. A full ring
// stalls committers.
//
// Launch: committers fill warps 0..W-1 of each block and warp W (the last)
// is the helper; the block's dynamic shared memory is ring_bytes(capacity).
#include <cstddef>
#include <cstdint>

#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/stm/durability.hpp"
#include "gpmx/stm/log_layout.hpp"
#include "gpmx/stm/log_room.hpp"
#include "gpmx/stm/persist_style.hpp"
#include "gpmx/stm/stm_fail.hpp"
#include "gpmx/stm/transaction.hpp"

namespace gpmx::stm {

enum entry_kind : std::uint32_t { entry_clean = 0, entry_record = 1, entry_mark = 2 };

// Shared-memory bytes a ring of `capacity` entries takes.
GPMX_HD constexpr std::size_t ring_bytes(std::uint32_t capacity) {
  return 8 * sizeof(std::uint32_t) + std::size_t(capacity) * (sizeof(log_entry) + sizeof(std::uint32_t));
}

// Adaptive switching: how often the helper warp refreshes its block's copy
// of the global switch: every this many drains while the ring is busy, and
// every this many tries of its wait while the ring is empty.
inline constexpr std::uint32_t switch_refresh_drains = 16;
inline constexpr std::uint32_t switch_refresh_tries = 8;

struct persist_ring {
  // [0] tail (entries reserved), [1] head (entries drained), [2] committers
  // done, [3] adaptive: the block's copy of the helpers switch
  std::uint32_t* control;
  log_entry* entries;
  std::uint32_t* kinds;    // dirty bits: an entry_kind per slot
  std::uint32_t capacity;

  template <class Ctx>
  GPMX_HD static persist_ring of(Ctx& t, std::uint32_t capacity) {
    auto* base = t.template dynamic_shared<std::byte>();
    persist_ring r;
    r.control = reinterpret_cast<std::uint32_t*>(base);
    r.entries = reinterpret_cast<log_entry*>(base + 8 * sizeof(std::uint32_t));
    r.kinds = reinterpret_cast<std::uint32_t*>(base + 8 * sizeof(std::uint32_t) + std::size_t(capacity) * sizeof(log_entry));
    r.capacity = capacity;
    return r;
  }
  // Every thread of the block calls it, then the block synchronizes.
  // global_switch (adaptive, else null): the block's copy starts as it.
  template <class Ctx>
  GPMX_HD void clear(Ctx& t, const std::uint32_t* global_switch = nullptr) const {
    const std::uint32_t n = t.block_dim().count();
    for (std::uint32_t i = t.thread_rank(); i < capacity; i += n) t.atomic_store(&kinds[i], 0u, memory_order::relaxed, scope::block);
    const std::uint32_t rank = t.thread_rank();
    if (rank < 8) {
      const std::uint32_t v = rank == 3 && global_switch != nullptr
                                  ? t.atomic_load(global_switch, memory_order::relaxed, scope::device)
                                  : 0u;
      t.atomic_store(&control[rank], v, memory_order::relaxed, scope::block);
    }
  }
  // Adaptive: whether commits go through the ring, as the block last saw
  // the global switch. Committers read this shared-memory copy, not the
  // global word: one device-scope read per commit cost every commit an L2
  // round trip (docs/transactions.md, "Adaptive switching").
  template <class Ctx>
  GPMX_HD bool helpers_switched_on(Ctx& t) const {
    return t.atomic_load(&control[3], memory_order::relaxed, scope::block) != 0u;
  }
  // The helper warp's lane 0: copies the global switch into the block's copy.
  template <class Ctx>
  GPMX_HD void refresh_switch(Ctx& t, const std::uint32_t* global_switch) const {
    t.atomic_store(&control[3], t.atomic_load(global_switch, memory_order::relaxed, scope::device),
                   memory_order::relaxed, scope::block);
  }
  // A committer of this block has finished its transactions.
  template <class Ctx>
  GPMX_HD void committer_done(Ctx& t) const {
    (void)t.atomic_add(&control[2], 1u, memory_order::release, scope::block);
  }
};

// Appends each committed record to the block's ring.
class ring_sink {
 public:
  GPMX_HD ring_sink(const tx_shared& s, const persist_ring& ring, std::uint64_t epoch) : s_(s), r_(ring), epoch_(epoch) {}

  // Before the record's sequence number is taken (transaction::commit):
  // reserves its entries and waits until the helper has drained what their
  // slots held.
  template <class Ctx>
  GPMX_HD sink_place reserve(Ctx& t, std::uint32_t writes) {
    const std::uint32_t n = record_entries(writes);
    if (n > r_.capacity) detail::stm_fail("a record is larger than the persistence buffer", n, r_.capacity);
    const std::uint32_t pos = t.atomic_add(&r_.control[0], n, memory_order::relaxed, scope::block);
    const std::uint32_t* head = &r_.control[1];
    if (pos + n - t.atomic_load(head, memory_order::acquire, scope::block) > r_.capacity) {
      count(t, s_, count_ring_full);
      t.spin_wait([&] { return pos + n - t.atomic_load(head, memory_order::acquire, scope::block) <= r_.capacity; });
    }
    return {pos, true};
  }

  template <class Ctx>
  GPMX_HD void commit(Ctx& t, const redo_view& rec, sink_place place) {
    const std::uint32_t n = record_entries(rec.count);
    const std::uint32_t pos = place.pos;
    auto slots = shared_span<log_entry>(r_.entries, r_.capacity).bind(t);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t slot = (pos + i) % r_.capacity;
      log_entry e;
      if (i + 1 == n) e = make_mark(rec.seq, mark_check(epoch_, make_header(rec.seq, rec.count)));
      else e = i == 0 ? make_header(rec.seq, rec.count) : make_data(rec.words[i - 1], rec.values[i - 1]);
      slots[slot] = e;
      t.atomic_store(&r_.kinds[slot], std::uint32_t(i + 1 == n ? entry_mark : entry_record), memory_order::release,
                     scope::block);
    }
    count(t, s_, count_ring);
  }

 private:
  const tx_shared& s_;
  persist_ring r_;
  std::uint64_t epoch_;
};

namespace detail {
GPMX_HD inline std::uint32_t trailing_ones(std::uint32_t m) {
  std::uint32_t n = 0;
  while (n < 32 && ((m >> n) & 1u)) ++n;
  return n;
}
}  // namespace detail

// Makes entries [pos, pos + n) of a helper's stream durable, whichever lane
// stored them: the warp syncs (so lane 0 sees every lane's store), lane 0
// persists the range (two, where it wraps around the end of a ring), and
// the warp syncs again (so no lane runs ahead of the durability point).
// Each lane's stores to the stream lie in such ranges, so no lane flushes
// them again itself.
template <class Ctx>
GPMX_HD void persist_batch(Ctx& t, const pm::pm_span<log_entry>& stream, std::uint64_t pos, std::uint32_t n) {
  const std::uint64_t size = stream.size();
  const std::uint64_t slot = pos % size;
  const std::uint64_t before_end = size - slot < n ? size - slot : n;
  const log_entry* first = stream.raw() + slot;
  const std::size_t bytes = std::size_t(before_end) * sizeof(log_entry);
  const std::size_t wrapped = std::size_t(n - before_end) * sizeof(log_entry);
  t.syncwarp();
  if (t.lane_id() == 0) {
    t.persist_range(first, bytes);
    if (wrapped != 0) t.persist_range(stream.raw(), wrapped);
  }
  t.syncwarp();
  t.forget_pm_stores(first, bytes);
  if (wrapped != 0) t.forget_pm_stores(stream.raw(), wrapped);
}

// The helper warp's loop: every lane of the block's last warp calls it.
// Returns when every committer of the block is done and the ring is empty.
// adaptive: the helper also keeps the block's copy of the switch fresh
// (persist_ring::refresh_switch).
template <class Ctx>
GPMX_HD void drain_ring(Ctx& t, const tx_shared& s, const persist_ring& r, const tx_log& log, persist_style style,
                        bool adaptive = false) {
  const std::uint32_t lane = t.lane_id();
  const std::uint32_t committers = t.block_dim().count() - 32;
  const std::uint32_t stream_index = log.block_stream_index(std::uint32_t(t.block_rank()));
  const auto stream = log.block_stream(std::uint32_t(t.block_rank()));
  const std::uint64_t stream_size = stream.size();
  auto out = stream.bind(t);
  auto slots = shared_span<log_entry>(r.entries, r.capacity).bind(t);
  std::uint64_t pos = 0;  // entries written to the stream
  const bool careless_marks = style.faults.mark_with_records;
  std::uint32_t drains_since_refresh = 0;
  for (;;) {
    if (adaptive && lane == 0 && drains_since_refresh++ % switch_refresh_drains == 0) r.refresh_switch(t, s.helpers_on);
    const std::uint32_t head = t.atomic_load(&r.control[1], memory_order::acquire, scope::block);
    const std::uint32_t* first = &r.kinds[head % r.capacity];
    // Work, or the end: every committer done and nothing reserved. An
    // adaptive helper's lane 0 also refreshes the block's copy of the
    // switch every few tries of the wait: inside the condition, so that a
    // helper waiting on an empty ring still counts as spinning (a kernel
    // whose every thread spins is reported as deadlocked, not left to hang).
    std::uint32_t tries = 0;
    t.spin_wait([&] {
      if (adaptive && lane == 0 && ++tries % switch_refresh_tries == 0) r.refresh_switch(t, s.helpers_on);
      return t.atomic_load(first, memory_order::acquire, scope::block) != entry_clean ||
             (t.atomic_load(&r.control[2], memory_order::acquire, scope::block) == committers &&
              t.atomic_load(&r.control[0], memory_order::acquire, scope::block) == head);
    });
    if (t.atomic_load(first, memory_order::acquire, scope::block) == entry_clean &&
        !style.faults.drain_past_clean)
      return;
    const std::uint32_t slot = (head + lane) % r.capacity;
    std::uint32_t kind = lane < r.capacity ? t.atomic_load(&r.kinds[slot], memory_order::acquire, scope::block)
                                           : std::uint32_t(entry_clean);
    std::uint32_t n = detail::trailing_ones(t.ballot(0xffffffffu, kind != entry_clean));
    if (style.faults.drain_past_clean) {
      // The careless helper takes whatever the tail has reserved.
      // Lane 0's view decides for the warp, so the lanes stay together.
      const std::uint32_t reserved =
          t.shfl(0xffffffffu, t.atomic_load(&r.control[0], memory_order::acquire, scope::block) - head, 0);
      if (reserved == 0) {
        const std::uint32_t* tail = &r.control[0];
        t.spin_wait([&] {
          return t.atomic_load(tail, memory_order::acquire, scope::block) != head ||
                 t.atomic_load(&r.control[2], memory_order::acquire, scope::block) == committers;
        });
        const std::uint32_t over = t.atomic_load(tail, memory_order::acquire, scope::block) == head ? 1u : 0u;
        if (t.shfl(0xffffffffu, over, 0) != 0u) return;
        continue;
      }
      n = reserved < 32 ? reserved : 32;
      if (kind == entry_clean && lane < n) kind = entry_record;
    }
    if (lane == 0)
      wait_for_room(t, s, log, stream_index, pos, n, stream_size,
                    "a block's helper log stream is full (entries needed, stream size)");
    t.syncwarp();
    if (t.lane_id() == 0) {
      // Reserved entries beyond the capacity wait for room: not in the buffer yet.
      const std::uint32_t reserved = t.atomic_load(&r.control[0], memory_order::relaxed, scope::block) - head;
      const std::uint32_t occupied = reserved < r.capacity ? reserved : r.capacity;
      count(t, s, count_occupancy_sum, occupied);
      const std::uint32_t bucket = std::uint32_t(std::uint64_t(occupied) * occupancy_buckets / (r.capacity + 1u));
      count(t, s, tx_counter(tx_counter_count + bucket));
    }
    const bool mine = lane < n;
    const bool is_mark = mine && kind == entry_mark;
    const log_entry e = mine ? log_entry(slots[slot]) : 0;
    // The records first, durable; then their marks (a persist fence
    // between). The lanes' stores are contiguous: the warp writes them back
    // as one coalesced range (lane 0 persists it once the warp has synced).
    const std::uint64_t at = (pos + lane) % stream_size;
    if (mine && (!is_mark || careless_marks)) out[at] = e;
    if (!careless_marks) persist_batch(t, stream, pos, n);
    if (is_mark && !careless_marks) out[at] = e;
    persist_batch(t, stream, pos, n);
    if (is_mark) note_durable(t, s, mark_seq(e));
    if (lane == 0) publish_durable_end(t, log, stream_index, pos + n);
    if (mine) t.atomic_store(&r.kinds[slot], 0u, memory_order::relaxed, scope::block);
    t.syncwarp();
    if (lane == 0) {
      t.atomic_store(&r.control[1], head + n, memory_order::release, scope::block);
      count(t, s, count_batches);
      count(t, s, count_drained, n);
    }
    t.syncwarp();
    pos += n;
  }
}

}  // namespace gpmx::stm
