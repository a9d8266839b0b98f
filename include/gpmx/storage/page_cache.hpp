#pragma once
// BaM's software cache, as kernel threads use it (002_..., section 4.2;
// docs/bam.md): a fixed pool of lines (slots) in GPU memory, one 32-bit state
// word per backing page (VALID, BUSY, DIRTY, a reference count) and the slot
// that holds it, clock eviction that skips pinned and busy pages, and
// write-back of dirty victims through the NVMe queues.
//
// A page is pinned while its reference count is non-zero: acquire() adds
// the caller's count (a whole coalesced group at once) before anything else,
// so a page cannot be evicted between the probe and the use; release()
// takes it off again.
#include <cstddef>
#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <exception>
#endif

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/storage/queue_pair.hpp"
#include "gpmx/storage/storage_error.hpp"

namespace gpmx::storage {

inline constexpr std::uint32_t page_valid = 1u << 31;
inline constexpr std::uint32_t page_busy = 1u << 30;
inline constexpr std::uint32_t page_dirty = 1u << 29;
inline constexpr std::uint32_t page_refs = page_dirty - 1;

// A slot's owner word: 0 free, else (range << 40 | page) + 1; the claim bit
// while a thread empties or fills it.
inline constexpr std::uint64_t slot_claimed = 1ull << 63;

enum class distribution : std::uint32_t {
  stripe,     // page p on device p mod n, at page p / n of it
  replicate,  // every page on every device; reads round-robin, writes to all
};

// Counters kept in cache memory, updated with atomics by kernel threads.
struct cache_counters {
  std::uint64_t hits = 0;         // acquires that found their page valid (per request, not per thread)
  std::uint64_t misses = 0;       // acquires that loaded their page
  std::uint64_t overwrites = 0;   // absent pages a writer filled whole, with no READ (acquire_overwrite)
  std::uint64_t evictions = 0;    // valid pages dropped to make room
  std::uint64_t write_backs = 0;  // dirty pages written back (on eviction or flush)
  std::uint64_t reads = 0;        // READ commands issued
  std::uint64_t writes = 0;       // WRITE commands issued
  std::uint64_t full_sweeps = 0;  // times a loader found every line pinned or busy and waited
  std::uint64_t pinned_sweeps = 0;  // of those, sweeps in which every line was pinned or claimed
};

// The first command that failed in a launch, as the thread that saw it
// wrote it (host-visible memory): on a GPU the thread then traps, which
// leaves the host a failed launch and no message, and storage::launch reads
// this to name the device, the command and its status.
struct command_failure {
  std::uint32_t taken = 0;  // set by the first thread that fails
  std::uint32_t all_pinned = 0;  // instead of a command: a GPU thread found every line pinned for too long
  std::uint32_t range = 0;
  std::uint32_t device = 0;  // within the range
  std::uint32_t blocks = 0;
  std::uint64_t slba = 0;
  std::uint16_t status = 0;
  std::uint8_t opcode = 0;
};

// One range of backing storage: its pages' state words and slots.
struct range_view {
  std::uint32_t* state = nullptr;      // pages
  std::uint32_t* page_slot = nullptr;  // pages
  std::uint64_t pages = 0;
  std::uint64_t first_lba = 0;         // on every device of the range
  std::uint32_t blocks_per_page = 0;   // logical blocks per cache line
  std::uint32_t devices = 1;
  distribution layout = distribution::stripe;
  std::uint32_t queues_per_device = 0;
  const queue_pair_view* queues = nullptr;  // devices x queues_per_device
  const char* const* device_names = nullptr;
};

struct cache_view {
  std::byte* lines = nullptr;  // slots x line_bytes
  std::uint64_t* slot_owner = nullptr;
  std::uint64_t* clock = nullptr;
  std::uint32_t* read_turn = nullptr;  // replicate: which device serves the next read
  cache_counters* counters = nullptr;
  const range_view* ranges = nullptr;
  command_failure* failure = nullptr;  // host-visible
  std::uint32_t range_count = 0;
  std::uint32_t line_bytes = 0;
  std::uint32_t slots = 0;

  GPMX_HD std::byte* line(std::uint32_t slot) const { return lines + std::size_t(slot) * line_bytes; }
};

namespace detail {

template <class Ctx>
GPMX_HD void count(Ctx& t, std::uint64_t* counter) {
  t.atomic_add(counter, std::uint64_t{1}, memory_order::relaxed);
}

// Records the failed command (the first of the launch only) where the host
// reads it, then fails the thread: on the cpu executor with the message, on
// a GPU with a trap (the launch fails; storage::launch names the command).
template <class Ctx>
GPMX_HD void command_failed(Ctx& t, const cache_view& c, std::uint32_t range, std::uint32_t device,
                                         nvme_opcode op, std::uint64_t slba, std::uint32_t blocks,
                                         std::uint16_t status) {
  command_failure* f = c.failure;
  if (f && t.atomic_cas(&f->taken, 0u, 1u, memory_order::relaxed, scope::system) == 0) {
    f->range = range;
    f->device = device;
    f->blocks = blocks;
    f->slba = slba;
    f->status = status;
    f->opcode = std::uint8_t(op);
    t.fence(scope::system);  // out to the host before the thread stops
  }
#if defined(__CUDA_ARCH__)
  __trap();
#else
  throw_command_failed(c.ranges[range].device_names[device], std::uint8_t(op), slba, blocks, status);
#endif
}

// A GPU has no executor to notice that no thread makes progress: a loader
// that has seen every line pinned, sweep after sweep, for this long records
// it and traps (storage::launch then names the cache and its size). Loads
// take micro- to milliseconds, so seconds of every line pinned is a cache
// smaller than what the threads hold pinned at once.
inline constexpr std::uint64_t all_pinned_trap_seconds = 5;

#if defined(__CUDA_ARCH__)
inline constexpr std::uint64_t all_pinned_trap_ns = all_pinned_trap_seconds * 1'000'000'000ull;

__device__ inline std::uint64_t gpu_time_ns() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

#endif

// Called on a GPU only (take_slot): records that every line stayed pinned, then traps.
template <class Ctx>
GPMX_HD void all_lines_pinned(Ctx& t, const cache_view& c) {
  command_failure* f = c.failure;
  if (f && t.atomic_cas(&f->taken, 0u, 1u, memory_order::relaxed, scope::system) == 0) {
    f->all_pinned = 1;
    t.fence(scope::system);
  }
#if defined(__CUDA_ARCH__)
  __trap();
#endif
}

// One READ or WRITE of `blocks` logical blocks at `slba` of one device,
// through the queue this warp uses; a failed command fails the kernel thread
// (never silently).
template <class Ctx>
GPMX_HD void block_io(Ctx& t, const cache_view& c, const range_view& r, std::uint32_t device, std::uint64_t slba,
                      std::uint32_t blocks, void* buffer, nvme_opcode op) {
  const queue_pair_view& q =
      r.queues[device * r.queues_per_device + std::uint32_t(t.global_id() / 32) % r.queues_per_device];
  const std::uint16_t cid = submit(t, q, make_io_command(op, slba, blocks, buffer));
  count(t, op == nvme_opcode::read ? &c.counters->reads : &c.counters->writes);
  const nvme_completion done = await_completion(t, q, cid);
  if (done.status_code() != 0)
    command_failed(t, c, std::uint32_t(&r - c.ranges), device, op, slba, blocks, done.status_code());
}

// A whole cache line: page `page_on_device` of one device into or out of `slot`.
template <class Ctx>
GPMX_HD void line_io(Ctx& t, const cache_view& c, const range_view& r, std::uint32_t device, std::uint64_t page_on_device,
                     std::uint32_t slot, nvme_opcode op) {
  block_io(t, c, r, device, r.first_lba + page_on_device * r.blocks_per_page, r.blocks_per_page, c.line(slot), op);
}

template <class Ctx>
GPMX_HD void read_page(Ctx& t, const cache_view& c, const range_view& r, std::uint64_t page, std::uint32_t slot) {
  if (r.layout == distribution::replicate) {
    const std::uint32_t device = t.atomic_add(c.read_turn, 1u, memory_order::relaxed) % r.devices;
    line_io(t, c, r, device, page, slot, nvme_opcode::read);
  } else {
    line_io(t, c, r, std::uint32_t(page % r.devices), page / r.devices, slot, nvme_opcode::read);
  }
}

template <class Ctx>
GPMX_HD void write_page(Ctx& t, const cache_view& c, const range_view& r, std::uint64_t page, std::uint32_t slot) {
  if (r.layout == distribution::replicate) {
    for (std::uint32_t d = 0; d < r.devices; ++d) line_io(t, c, r, d, page, slot, nvme_opcode::write);
  } else {
    line_io(t, c, r, std::uint32_t(page % r.devices), page / r.devices, slot, nvme_opcode::write);
  }
  count(t, &c.counters->write_backs);
}

// Takes one slot for the caller: a free one, or the next unpinned valid page
// the clock reaches (written back first if dirty). Returns it claimed.
template <class Ctx>
GPMX_HD std::uint32_t take_slot(Ctx& t, const cache_view& c) {
  std::uint32_t taken = 0;
  // A valid page the sweep evicts (its range and page, and whether dirty):
  // written back and let go after the spin, not inside its condition, which
  // the timed schedule checks off the thread's fiber, where the write's
  // wait for its completion could not park.
  const range_view* victim = nullptr;
  std::uint64_t victim_page = 0;
  bool victim_dirty = false;
#if defined(__CUDA_ARCH__)
  std::uint64_t pinned_since = 0;  // when this thread's sweeps began finding every line pinned
#endif
  t.spin_wait([&] {
    std::uint32_t pinned = 0;
    for (std::uint32_t probe = 0; probe < c.slots; ++probe) {
      const std::uint32_t s = std::uint32_t(t.atomic_add(c.clock, std::uint64_t{1}, memory_order::relaxed) % c.slots);
      std::uint64_t* owner = &c.slot_owner[s];
      const std::uint64_t o = t.atomic_load(owner, memory_order::acquire);
      // A claimed line is being filled or emptied: held like a pinned one
      // (a page being overwritten stays claimed while its writers compute).
      if (o & slot_claimed) {
        ++pinned;
        continue;
      }
      if (o == 0) {
        if (t.atomic_cas(owner, std::uint64_t{0}, slot_claimed, memory_order::acq_rel) == 0) {
          taken = s;
          return true;
        }
        continue;
      }
      const range_view& vr = c.ranges[(o - 1) >> 40];
      const std::uint64_t vpage = (o - 1) & ((1ull << 40) - 1);
      std::uint32_t* vstate = &vr.state[vpage];
      const std::uint32_t v = t.atomic_load(vstate, memory_order::acquire);
      if ((v & page_refs) != 0) ++pinned;
      if ((v & page_refs) != 0 || (v & page_busy) != 0 || (v & page_valid) == 0) continue;
      // Pinning adds to the count first, so this fails if anyone pinned it since.
      if (t.atomic_cas(vstate, v, page_busy, memory_order::acq_rel) != v) continue;
      // The owner word read above may be stale (the page moved to another
      // slot since): give the page back untouched.
      if (t.atomic_load(&vr.page_slot[vpage], memory_order::acquire) != s) {
        t.atomic_or(vstate, v & (page_valid | page_dirty), memory_order::relaxed);
        t.atomic_and(vstate, ~page_busy, memory_order::release);
        continue;
      }
      t.atomic_store(owner, slot_claimed, memory_order::relaxed);
      victim = &vr;
      victim_page = vpage;
      victim_dirty = (v & page_dirty) != 0;
      taken = s;
      return true;
    }
    count(t, &c.counters->full_sweeps);
    if (pinned == c.slots) count(t, &c.counters->pinned_sweeps);
#if defined(__CUDA_ARCH__)
    if (pinned != c.slots) {
      pinned_since = 0;
    } else if (pinned_since == 0) {
      pinned_since = gpu_time_ns();
    } else if (gpu_time_ns() - pinned_since > all_pinned_trap_ns) {
      all_lines_pinned(t, c);
    }
#endif
    return false;  // every line pinned or busy: let their holders run
  });
  if (victim) {  // the slot is claimed and the page busy: nobody else touches either
    if (victim_dirty) write_page(t, c, *victim, victim_page, taken);
    t.atomic_and(&victim->state[victim_page], ~(page_valid | page_busy | page_dirty), memory_order::release);
    count(t, &c.counters->evictions);
  }
  return taken;
}

}  // namespace detail

namespace detail {

// Adds the caller's `pins` to the page's count first (so it cannot be
// evicted from under the caller), then either finds it valid (true; a
// writer marks it dirty) or takes its BUSY bit to fill it (false).
template <class Ctx>
GPMX_HD bool pin_page(Ctx& t, const cache_view& c, std::uint32_t range, std::uint64_t page, std::uint32_t pins,
                      bool write) {
  std::uint32_t* state = &c.ranges[range].state[page];
  std::uint32_t old = t.atomic_add(state, pins, memory_order::acq_rel);
  for (;;) {
    if (old & page_valid) {
      if (write && (old & page_dirty) == 0) t.atomic_or(state, page_dirty, memory_order::relaxed);
      count(t, &c.counters->hits);
      return true;
    }
    if ((old & page_busy) == 0) {
      const std::uint32_t seen = t.atomic_cas(state, old, old | page_busy, memory_order::acq_rel);
      if (seen == old) return false;  // this thread fills the page
      old = seen;
      continue;
    }
    t.spin_wait([&] { return ((old = t.atomic_load(state, memory_order::acquire)) & page_busy) == 0; });
  }
}

// Makes a filled slot the page's: its slot and owner, VALID (DIRTY for a
// writer), then BUSY off, which lets the page's waiters in.
template <class Ctx>
GPMX_HD void publish_page(Ctx& t, const cache_view& c, std::uint32_t range, std::uint64_t page, std::uint32_t slot,
                          bool write) {
  std::uint32_t* state = &c.ranges[range].state[page];
  t.atomic_store(&c.ranges[range].page_slot[page], slot, memory_order::relaxed);
  t.atomic_store(&c.slot_owner[slot], ((std::uint64_t(range) << 40) | page) + 1, memory_order::release);
  t.atomic_or(state, page_valid | (write ? page_dirty : 0u), memory_order::release);
  t.atomic_and(state, ~page_busy, memory_order::release);
}

}  // namespace detail

// Pins page `page` of range `range` for `pins` references and returns the
// slot that holds it, valid; loads it on a miss. `write` marks it dirty.
template <class Ctx>
GPMX_HD std::uint32_t acquire(Ctx& t, const cache_view& c, std::uint32_t range, std::uint64_t page, std::uint32_t pins,
                              bool write) {
  const range_view& r = c.ranges[range];
  if (detail::pin_page(t, c, range, page, pins, write)) return t.atomic_load(&r.page_slot[page], memory_order::acquire);
  const std::uint32_t slot = detail::take_slot(t, c);
#if !defined(__CUDA_ARCH__)
  std::exception_ptr failed;
  try {
    detail::read_page(t, c, r, page, slot);
  } catch (const storage_error&) {  // only the command's failure: the executor's own unwinding passes
    failed = std::current_exception();
  }
  if (failed) {
    // Leave the page absent and the slot free, so the cache stays usable.
    // (Outside the handler: these atomics may switch fibers.)
    std::uint32_t* state = &r.state[page];
    t.atomic_store(&c.slot_owner[slot], std::uint64_t{0}, memory_order::release);
    t.atomic_sub(state, pins, memory_order::relaxed);
    t.atomic_and(state, ~page_busy, memory_order::release);
    std::rethrow_exception(failed);
  }
#else
  detail::read_page(t, c, r, page, slot);
#endif
  detail::count(t, &c.counters->misses);
  detail::publish_page(t, c, range, page, slot, write);
  return slot;
}

// For a writer that will write every byte of the page: pins it as
// acquire(..., true) does, but a page not in the cache is not read. Then
// `fill` is set, the slot holds another page's stale bytes, and the page
// stays BUSY (its readers wait) until the caller has written the whole line
// and called publish_overwrite. A cached page is returned valid and dirty.
template <class Ctx>
GPMX_HD std::uint32_t acquire_overwrite(Ctx& t, const cache_view& c, std::uint32_t range, std::uint64_t page,
                                        std::uint32_t pins, bool& fill) {
  fill = !detail::pin_page(t, c, range, page, pins, true);
  if (!fill) return t.atomic_load(&c.ranges[range].page_slot[page], memory_order::acquire);
  const std::uint32_t slot = detail::take_slot(t, c);
  detail::count(t, &c.counters->overwrites);
  return slot;
}

// The end of a fill acquire_overwrite asked for: the line is the page's, valid and dirty.
template <class Ctx>
GPMX_HD void publish_overwrite(Ctx& t, const cache_view& c, std::uint32_t range, std::uint64_t page,
                               std::uint32_t slot) {
  detail::publish_page(t, c, range, page, slot, true);
}

template <class Ctx>
GPMX_HD void release(Ctx& t, const cache_view& c, std::uint32_t range, std::uint64_t page, std::uint32_t pins) {
  t.atomic_sub(&c.ranges[range].state[page], pins, memory_order::release);
}

// Writes page `page` back if it is valid and dirty (one thread per page;
// what flush() runs).
template <class Ctx>
GPMX_HD void write_back(Ctx& t, const cache_view& c, std::uint32_t range, std::uint64_t page) {
  const range_view& r = c.ranges[range];
  std::uint32_t* state = &r.state[page];
  // Pinned while written, so no loader evicts it meanwhile.
  const std::uint32_t v = t.atomic_add(state, 1u, memory_order::acq_rel);
  if ((v & page_valid) != 0 && (v & page_dirty) != 0) {
    // DIRTY is cleared before the write: a store made during it sets it again.
    t.atomic_and(state, ~page_dirty, memory_order::acq_rel);
    detail::write_page(t, c, r, page, t.atomic_load(&r.page_slot[page], memory_order::acquire));
  }
  t.atomic_sub(state, 1u, memory_order::release);
}

}  // namespace gpmx::storage
