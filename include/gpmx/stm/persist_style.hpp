#pragma once
// How transaction code orders and waits for its log writes, and the
// careless variants the crash checker must be able to catch (kernel code).
#include <cstdint>

#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/ordering.hpp"

namespace gpmx::stm {

// Deliberate bugs (docs/check.md): each breaks an invariant recovery needs.
struct seeded_faults {
  bool mark_with_records = false;  // the commit mark is written before its records are durable
  bool drain_past_clean = false;   // the helper drains entries whose dirty bit is not set yet
};

struct persist_style {
  pm::ordering order = pm::ordering::epoch;  // epoch: gpm_persist; sbrp: ofence/dfence
  seeded_faults faults = {};
};

// Makes the calling thread's earlier PM stores durable (a persist fence).
template <class Ctx>
GPMX_HD void persist_own(Ctx& t, const persist_style& p) {
  if (p.order == pm::ordering::sbrp) t.dfence();
  else t.gpm_persist();
}

}  // namespace gpmx::stm
