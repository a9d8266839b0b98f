#pragma once
// What every PM store a kernel makes through a view or a log reports, right
// after the store: a crash point, the bytes for pm_write_stats, and the
// store itself to the thread context (which tracks its lines for the next
// persist and tells an observer). On CUDA only the last applies.
#include <cstddef>

#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/exec/source_loc.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/pm_write_stats.hpp"

namespace gpmx::pm {

template <class Ctx>
GPMX_HD void note_pm_store(Ctx& t, const persist_domain* d, const void* p, std::size_t bytes,
                           source_loc loc = source_loc::current()) {
#if !defined(__CUDA_ARCH__)
  crash_trigger::point();
  pm_write_stats::add_kernel_store(bytes);
#endif
  t.record_pm_write(d, p, bytes, loc);
}

}  // namespace gpmx::pm
