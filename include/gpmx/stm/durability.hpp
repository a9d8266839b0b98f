#pragma once
// Which records are durable, and the durable fence (kernel code). A commit
// guarantees atomicity and isolation; durability comes when the record's
// mark is durable, by the committer itself or later by a helper warp. The
// fence waits until every record up to a sequence number is.
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/stm/tx_memory.hpp"

namespace gpmx::stm {

// Record seq's mark is durable: its flag is set and its chunk's count
// grows (once, even if the mark were noted twice: the chunk's count must
// never run ahead of its flags).
template <class Ctx>
GPMX_HD void note_durable(Ctx& t, const tx_shared& s, std::uint32_t seq) {
  if (s.durable == nullptr || seq < s.first_seq || seq - s.first_seq >= s.seq_capacity) return;
  const std::uint32_t i = seq - s.first_seq;
  if (t.atomic_exch(&s.durable[i], 1u, memory_order::acq_rel, scope::device) == 0u)
    t.atomic_add(&s.durable[s.seq_capacity + i / durable_chunk], 1u, memory_order::release, scope::device);
}

// Returns once every record with a sequence number <= seq is durable. A
// waiter scans forward from the shared persisted prefix, a whole chunk at a
// time where the chunk's count says all of it is durable, and moves the
// prefix to the end of the durable run it found; where the next record is
// not durable yet it waits for that record's flag.
template <class Ctx>
GPMX_HD void durable_fence(Ctx& t, const tx_shared& s, std::uint32_t seq) {
  const std::uint32_t* counts = s.durable + s.seq_capacity;
  for (;;) {
    const std::uint32_t p = t.atomic_load(s.persisted_prefix, memory_order::acquire, scope::device);
    if (p >= seq) return;
    const std::uint32_t from = p + 1 - s.first_seq;  // the first record not known durable
    if (from >= s.seq_capacity) return;  // beyond this launch: its end makes them durable
    const std::uint32_t want = seq - s.first_seq < s.seq_capacity ? seq - s.first_seq + 1 : s.seq_capacity;
    std::uint32_t q = from;
    while (q < want) {
      if (q % durable_chunk == 0) {
        const std::uint32_t n = s.seq_capacity - q < durable_chunk ? s.seq_capacity - q : durable_chunk;
        if (t.atomic_load(&counts[q / durable_chunk], memory_order::acquire, scope::device) == n) {
          q += n;
          continue;
        }
      }
      if (t.atomic_load(&s.durable[q], memory_order::acquire, scope::device) == 0u) break;
      ++q;
    }
    if (q > from) {
      (void)t.atomic_max(s.persisted_prefix, s.first_seq + q - 1, memory_order::acq_rel, scope::device);
      continue;
    }
    const std::uint32_t* flag = &s.durable[from];
    t.spin_wait([&] { return t.atomic_load(flag, memory_order::acquire, scope::device) != 0u; });
  }
}

}  // namespace gpmx::stm
