#pragma once
// Commits through the helper warp's ring while helpers are switched on
// (tx_shared::helpers_on, set by the bandwidth monitor), else persisted by
// the committer itself. Kernel code.
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/stm/direct_sink.hpp"
#include "gpmx/stm/persist_ring.hpp"

namespace gpmx::stm {

class adaptive_sink {
 public:
  GPMX_HD adaptive_sink(const tx_shared& s, direct_sink direct, ring_sink ring) : s_(s), direct_(direct), ring_(ring) {}

  template <class Ctx>
  GPMX_HD void commit(Ctx& t, const redo_view& r) {
    if (t.atomic_load(s_.helpers_on, memory_order::relaxed, scope::device) != 0u) ring_.commit(t, r);
    else direct_.commit(t, r);
  }

 private:
  const tx_shared& s_;
  direct_sink direct_;
  ring_sink ring_;
};

}  // namespace gpmx::stm
