#pragma once
// A log stream's room (kernel code). A writer about to append n entries at
// position pos of its stream waits, when the stream is a ring, until the
// truncator has reclaimed the entries those slots held; a stream that does
// not wrap must simply be large enough. After a record's mark is durable
// the writer publishes how far its stream's records are durable, the only
// part of the ring the truncator reads. Both words are shared with a host
// agent, hence system scope.
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/stm/log_layout.hpp"
#include "gpmx/stm/stm_fail.hpp"
#include "gpmx/stm/tx_memory.hpp"

namespace gpmx::stm {

// Returns once entries [pos, pos + n) of stream i may be written; counts a
// wait in s's statistics. `who` names the writer in the error a stream
// that does not wrap and is full raises.
template <class Ctx>
GPMX_HD void wait_for_room(Ctx& t, const tx_shared& s, const tx_log& log, std::uint32_t stream, std::uint64_t pos,
                           std::uint64_t n, std::uint64_t size, const char* who) {
  if (log.reclaimed == nullptr) {
    if (pos + n > size) detail::stm_fail(who, pos + n, size);
    return;
  }
  const std::uint64_t* reclaimed = &log.reclaimed[stream];
  if (pos + n - t.atomic_load(reclaimed, memory_order::acquire, scope::system) <= size) return;
  count(t, s, count_log_room_waits);
  t.spin_wait([&] { return pos + n - t.atomic_load(reclaimed, memory_order::acquire, scope::system) <= size; });
}

// Stream i's records up to position end are durable.
template <class Ctx>
GPMX_HD void publish_durable_end(Ctx& t, const tx_log& log, std::uint32_t stream, std::uint64_t end) {
  if (log.durable_end != nullptr) t.atomic_store(&log.durable_end[stream], end, memory_order::release, scope::system);
}

}  // namespace gpmx::stm
