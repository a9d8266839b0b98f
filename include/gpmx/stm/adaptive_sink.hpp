#pragma once
// Commits through the helper warp's ring while helpers are switched on
// (tx_shared::helpers_on, set by the bandwidth monitor, as the block's
// helper warp last copied it into shared memory), else persisted by the
// committer itself. Kernel code.
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/stm/direct_sink.hpp"
#include "gpmx/stm/persist_ring.hpp"

namespace gpmx::stm {

class adaptive_sink {
 public:
  GPMX_HD adaptive_sink(const persist_ring& ring, direct_sink direct, ring_sink queued)
      : ring_(ring), direct_(direct), queued_(queued) {}

  // The switch is read once per commit, here: the record goes where its
  // place was reserved.
  template <class Ctx>
  GPMX_HD sink_place reserve(Ctx& t, std::uint32_t writes) {
    return ring_.helpers_switched_on(t) ? queued_.reserve(t, writes) : direct_.reserve(t, writes);
  }

  template <class Ctx>
  GPMX_HD void commit(Ctx& t, const redo_view& r, sink_place place) {
    if (place.queued) queued_.commit(t, r, place);
    else direct_.commit(t, r, place);
  }

 private:
  persist_ring ring_;
  direct_sink direct_;
  ring_sink queued_;
};

}  // namespace gpmx::stm
