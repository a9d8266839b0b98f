#pragma once
// The recovery loop of an undo-logged workload: a thread takes its own HCL
// entries newest first, restores what each one saved, makes that durable
// and only then removes the entry, so a crash during recovery leaves either
// the entry or its restored data. restore(e) returns false to stop early
// (an entry the caller must keep, such as one of an older round).
#include <cstdint>

#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/hcl_log.hpp"

namespace gpmx::apps {

template <class Entry, class Ctx, class Restore>
GPMX_HD void undo_newest_first(Ctx& t, pm::hcl_view log, Restore restore) {
  while (!log.is_empty(t)) {
    Entry e{};
    log.read(t, &e, sizeof e);
    if (!restore(e)) return;
    t.gpm_persist();  // restored before the entry goes
    log.remove(t, sizeof e);
  }
}

}  // namespace gpmx::apps
