#pragma once
// Recovery of an undo-logged workload that touches only what the crash
// left: the host lists the HCL slots that hold entries
// (hcl_log::occupied_slots) and launches one thread per such slot, not one
// per thread of the log's geometry. A thread restores every entry of its
// slot newest first, makes the restored data durable with one persist, and
// only then truncates the slot with one more. A crash during recovery
// leaves the entries, and running recovery again restores the same old
// values: undo is idempotent.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/hcl_log.hpp"

namespace gpmx::apps {

// restore(e) returns false to stop at e (an entry the caller must keep,
// such as one of an older round); e and every older entry stay logged.
template <class Entry, class Ctx, class Restore>
GPMX_HD void undo_slot_newest_first(Ctx& t, pm::hcl_view log, std::uint64_t slot, Restore restore) {
  constexpr std::uint32_t words = (sizeof(Entry) + 3) / 4;
  const std::uint32_t tail = log.tail_of_slot(slot);
  std::uint32_t keep = tail;
  while (keep >= words) {
    Entry e{};
    log.read_slot(slot, keep, &e, sizeof e);
    if (!restore(e)) break;
    keep -= words;
  }
  if (keep == tail) return;
  t.gpm_persist();  // every restored value durable before its entry goes
  log.truncate_slot(t, slot, keep);
}

// The thread of an undo kernel: which occupied slot it undoes, if any.
template <class Ctx>
GPMX_HD bool occupied_slot_of(Ctx& t, global_span<const std::uint64_t> slots, std::uint64_t& slot) {
  const std::uint64_t i = t.global_id();
  if (i >= slots.size()) return false;
  slot = slots.bind(t)[i];
  return true;
}

// Threads per block of an undo launch. The slots are independent. On a
// GPU (and in the timed mode, which models one) one warp per block lets a
// crash's few thousand slots spread over every SM, whose persists and
// barriers then drain in parallel (SBRP hardware sends a few of each SM's
// persists at a time; 256-thread blocks put them on a third of the SMs:
// docs/reproduction.md, "Figure 11 as it stands"). The cpu executor's
// other schedules keep 256: a kernel of a few blocks runs fastest there on
// one worker.
inline std::uint32_t undo_block_threads(const launch_target& ex) {
  return ex.on_gpu() || ex.cpu().options().policy == cpu::schedule::timed ? 32 : 256;
}

// Launches kernel(t, slots, args...) with one thread per occupied slot
// (hcl_log::occupied_slots, or the list require_undo_indices_below
// returns); launches nothing when the crash left the log empty.
template <class Kernel, class... Args>
void launch_over_occupied_slots(const launch_target& ex, const std::vector<std::uint64_t>& occupied,
                                std::string_view name, Kernel kernel, Args&&... args) {
  if (occupied.empty()) return;
  const std::uint32_t block = undo_block_threads(ex);
  const auto in = ex.input(std::span<const std::uint64_t>(occupied));
  ex.launch({dim3(std::uint32_t((occupied.size() + block - 1) / block)), dim3(block), 0, std::string(name)}, kernel, in.span(),
            std::forward<Args>(args)...);
}

}  // namespace gpmx::apps
