#pragma once
// One NVMe queue pair as kernel threads use it: BaM's protocol for many
// producers without a big lock (002_..., section 4; docs/bam.md).
//
// Submission: a thread takes a 64-bit ticket t; its slot is t mod depth and
// its turn 2*(t/depth). It waits until the slot's turn counter equals its
// turn (the slot's previous command was both submitted and fetched by the
// device), writes the command, sets the slot's mark, and then moves the tail:
// whoever wins the tail lock walks over consecutive marked slots, clears
// them, and writes the doorbell once for the whole run, never letting the
// tail come within one slot of the head. Its turn counter then goes odd.
//
// Completion: the waiter scans the completion queue from its head for its
// command id with the phase tag the current pass expects, copies the entry
// and marks the slot; whoever wins the completion lock advances the head over
// consecutive marked slots, frees their command ids, writes the head
// doorbell, and reads the submission queue head (SQHD) of the last entry it
// passed: every submission slot the device fetched gets its turn counter
// incremented (even again: free for the next turn). A waiter returns once its
// own mark is cleared, so no completion is left unreclaimed.
//
// Everything here runs in kernel threads through the thread context's
// atomics, so the deterministic and trace schedules see every step. Only
// the doorbells and the completions reach the controller; they take the
// queue's host_scope, the rest stays among the kernel's threads (device
// scope). A command's bytes reach the controller through the chain of
// releases and acquires from its writer's mark to the doorbell.
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/storage/nvme.hpp"

namespace gpmx::storage {

inline constexpr std::uint32_t command_ids = 65536;

// Where one queue pair's memory is (queue_memory.hpp owns it); copied into
// kernels by value.
struct queue_pair_view {
  nvme_command* sq = nullptr;
  nvme_completion* cq = nullptr;
  std::uint32_t* turn = nullptr;      // depth counters
  std::uint32_t* sq_mark = nullptr;   // depth
  std::uint32_t* cq_mark = nullptr;   // depth
  std::uint32_t* cid_bits = nullptr;  // command_ids / 32 words
  std::uint64_t* ticket = nullptr;
  std::uint64_t* sq_tail = nullptr;   // entries made visible to the device (not wrapped)
  std::uint64_t* sq_head = nullptr;   // entries the device fetched, as known from SQHD
  std::uint64_t* cq_head = nullptr;   // completions reclaimed (not wrapped)
  std::uint32_t* cid_hint = nullptr;
  std::uint32_t* sq_lock = nullptr;
  std::uint32_t* cq_lock = nullptr;
  std::uint32_t* sq_doorbell = nullptr;  // the tail, wrapped
  std::uint32_t* cq_doorbell = nullptr;  // the completion head, wrapped
  std::uint32_t depth = 0;
  std::uint16_t qid = 0;
  // The scope of what the controller (a host agent) reads or writes while
  // kernels run: the doorbells threads ring and the completions they poll.
  // System when the queues are in pinned host memory beside a GPU; device
  // elsewhere (the cpu executor honours every scope at system strength, and
  // the timed mode's queues are the simulated GPU's memory).
  scope host_scope = scope::device;
};

namespace detail {

// The phase tag a completion at unwrapped position p carries (the device
// writes 1 on the first pass over a zeroed queue).
GPMX_HD inline std::uint32_t expected_phase(std::uint64_t p, std::uint32_t depth) {
  return ((p / depth) & 1u) == 0 ? 1u : 0u;
}

// cid and status travel as one 32-bit word so the waiter reads both at once.
GPMX_HD inline std::uint32_t* completion_word(nvme_completion* e) {
  return reinterpret_cast<std::uint32_t*>(&e->cid);
}

GPMX_HD inline std::uint32_t lowest_zero_bit(std::uint32_t w) {
  std::uint32_t b = 0;
  while ((w >> b) & 1u) ++b;
  return b;
}

template <class Ctx>
GPMX_HD std::uint16_t allocate_cid(Ctx& t, const queue_pair_view& q) {
  constexpr std::uint32_t words = command_ids / 32;
  std::uint16_t cid = 0;
  t.spin_wait([&] {
    const std::uint32_t start = t.atomic_add(q.cid_hint, 1u) % words;
    for (std::uint32_t i = 0; i < words; ++i) {
      std::uint32_t* w = &q.cid_bits[(start + i) % words];
      for (std::uint32_t v = t.atomic_load(w); v != 0xffffffffu; v = t.atomic_load(w)) {
        const std::uint32_t bit = 1u << lowest_zero_bit(v);
        if ((t.atomic_or(w, bit, memory_order::acq_rel) & bit) == 0) {
          cid = std::uint16_t(((start + i) % words) * 32 + lowest_zero_bit(v));
          return true;
        }
      }
    }
    return false;  // every id is in flight: wait for a completion to free one
  });
  return cid;
}

template <class Ctx>
GPMX_HD void free_cid(Ctx& t, const queue_pair_view& q, std::uint16_t cid) {
  t.atomic_and(&q.cid_bits[cid / 32], ~(1u << (cid % 32)), memory_order::release);
}

// One try at moving the tail over consecutive marked slots.
template <class Ctx>
GPMX_HD void try_move_tail(Ctx& t, const queue_pair_view& q) {
  if (t.atomic_cas(q.sq_lock, 0u, 1u, memory_order::acquire) != 0) return;
  const std::uint64_t tail = t.atomic_load(q.sq_tail, memory_order::relaxed);
  const std::uint64_t head = t.atomic_load(q.sq_head, memory_order::acquire);
  std::uint64_t next = tail;
  while (next - head < q.depth - 1 && t.atomic_load(&q.sq_mark[next % q.depth], memory_order::acquire) != 0) {
    t.atomic_store(&q.sq_mark[next % q.depth], 0u, memory_order::relaxed);
    ++next;
  }
  if (next != tail) {
    t.atomic_store(q.sq_tail, next, memory_order::relaxed);
    t.atomic_store(q.sq_doorbell, std::uint32_t(next % q.depth), memory_order::release, q.host_scope);
  }
  t.atomic_store(q.sq_lock, 0u, memory_order::release);
}

// One try at reclaiming consecutive marked completions.
template <class Ctx>
GPMX_HD void try_advance_completions(Ctx& t, const queue_pair_view& q) {
  if (t.atomic_cas(q.cq_lock, 0u, 1u, memory_order::acquire) != 0) return;
  const std::uint64_t head = t.atomic_load(q.cq_head, memory_order::relaxed);
  std::uint64_t next = head;
  std::uint16_t sqhd = 0;
  while (next - head < q.depth && t.atomic_load(&q.cq_mark[next % q.depth], memory_order::acquire) != 0) {
    nvme_completion* e = &q.cq[next % q.depth];
    sqhd = e->sqhd;
    free_cid(t, q, e->cid);
    t.atomic_store(&q.cq_mark[next % q.depth], 0u, memory_order::relaxed);
    ++next;
  }
  if (next != head) {
    t.atomic_store(q.cq_head, next, memory_order::release);
    t.atomic_store(q.cq_doorbell, std::uint32_t(next % q.depth), memory_order::release, q.host_scope);
    // Fewer than depth entries are ever outstanding, so the wrapped SQHD
    // names one unwrapped head.
    const std::uint64_t old_head = t.atomic_load(q.sq_head, memory_order::relaxed);
    const std::uint64_t fetched = (sqhd + q.depth - old_head % q.depth) % q.depth;
    for (std::uint64_t s = old_head; s < old_head + fetched; ++s)
      t.atomic_add(&q.turn[s % q.depth], 1u, memory_order::release);
    t.atomic_store(q.sq_head, old_head + fetched, memory_order::release);
  }
  t.atomic_store(q.cq_lock, 0u, memory_order::release);
}

}  // namespace detail

// Enqueues `cmd` (its cid is assigned here) and rings the doorbell; returns
// the command id to wait for.
template <class Ctx>
GPMX_HD std::uint16_t submit(Ctx& t, const queue_pair_view& q, nvme_command cmd) {
  cmd.cid = detail::allocate_cid(t, q);
  const std::uint64_t ticket = t.atomic_add(q.ticket, std::uint64_t{1}, memory_order::relaxed);
  const std::uint32_t slot = std::uint32_t(ticket % q.depth);
  const std::uint32_t turn = std::uint32_t(2 * (ticket / q.depth));
  // Long waits (a slot behind a queue's worth of commands, an I/O): spin_wait_long.
  t.spin_wait_long([&] { return t.atomic_load(&q.turn[slot], memory_order::acquire) == turn; });
  q.sq[slot] = cmd;
  t.record_store(mem_space::global, &q.sq[slot], sizeof(nvme_command));
  t.atomic_store(&q.sq_mark[slot], 1u, memory_order::release);
  t.spin_wait([&] {
    detail::try_move_tail(t, q);
    return t.atomic_load(&q.sq_mark[slot], memory_order::acquire) == 0;
  });
  t.atomic_add(&q.turn[slot], 1u, memory_order::release);  // odd: submitted
  return cmd.cid;
}

// Waits for the completion of command `cid`, reclaims it, and returns it.
template <class Ctx>
GPMX_HD nvme_completion await_completion(Ctx& t, const queue_pair_view& q, std::uint16_t cid) {
  nvme_completion found;
  std::uint64_t at = 0;
  t.spin_wait_long([&] {
    const std::uint64_t head = t.atomic_load(q.cq_head, memory_order::acquire);
    for (std::uint64_t p = head; p < head + q.depth; ++p) {
      nvme_completion* e = &q.cq[p % q.depth];
      const std::uint32_t word = t.atomic_load(detail::completion_word(e), memory_order::acquire, q.host_scope);
      if (((word >> 16) & 1u) != detail::expected_phase(p, q.depth)) return false;  // not posted yet
      if ((word & 0xffffu) == cid) {
        found = *e;
        t.record_load(mem_space::global, e, sizeof(nvme_completion));
        at = p;
        return true;
      }
    }
    return false;
  });
  t.atomic_store(&q.cq_mark[at % q.depth], 1u, memory_order::release);
  t.spin_wait([&] {
    detail::try_advance_completions(t, q);
    return t.atomic_load(q.cq_head, memory_order::acquire) > at;
  });
  return found;
}

}  // namespace gpmx::storage
