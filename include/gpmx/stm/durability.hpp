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

// Record seq's mark is durable.
template <class Ctx>
GPMX_HD void note_durable(Ctx& t, const tx_shared& s, std::uint32_t seq) {
  if (s.durable == nullptr || seq < s.first_seq || seq - s.first_seq >= s.seq_capacity) return;
  t.atomic_store(&s.durable[seq - s.first_seq], 1u, memory_order::release, scope::device);
}

// Returns once every record with a sequence number <= seq is durable. The
// waiting threads advance the shared persisted prefix together, one
// durable record at a time.
template <class Ctx>
GPMX_HD void durable_fence(Ctx& t, const tx_shared& s, std::uint32_t seq) {
  for (;;) {
    const std::uint32_t p = t.atomic_load(s.persisted_prefix, memory_order::acquire, scope::device);
    if (p >= seq) return;
    const std::uint32_t next = p + 1 - s.first_seq;
    if (next >= s.seq_capacity) return;  // beyond this launch: its end makes them durable
    const std::uint32_t* flag = &s.durable[next];
    if (t.atomic_load(flag, memory_order::acquire, scope::device) != 0u) {
      (void)t.atomic_cas(s.persisted_prefix, p, p + 1, memory_order::acq_rel, scope::device);
      continue;
    }
    t.spin_wait([&] { return t.atomic_load(flag, memory_order::acquire, scope::device) != 0u; });
  }
}

}  // namespace gpmx::stm
