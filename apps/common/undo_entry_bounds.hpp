#pragma once
// Recovery reads its undo entries from PM and must not trust them: every
// entry's index has to name an element of the table it restores, or undoing
// it would write outside that table. Checked on the host before the undo
// kernel runs, so a corrupt entry is refused with nothing written. The same
// walk lists the slots that hold entries, which the undo kernel visits.
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/stored_value.hpp"

namespace gpmx::apps {

// index_of(entry) is the table index the entry restores; `what` names it
// ("slot", "row") and `bound_text` says where `bound` came from. Returns
// the occupied slots, as hcl_log::occupied_slots would.
template <class Entry, class IndexOf>
std::vector<std::uint64_t> require_undo_indices_below(pm::hcl_log& log, std::uint64_t bound, std::string_view what,
                                std::string_view bound_text, IndexOf index_of) {
  std::vector<std::uint64_t> occupied;
  const pm::hcl_view v = log.view();
  log.for_each_entry(sizeof(Entry), [&](std::uint64_t block, std::uint32_t thread, const void* raw) {
    if (const std::uint64_t s = v.slot(block, thread); occupied.empty() || occupied.back() != s) occupied.push_back(s);
    Entry e;
    std::memcpy(&e, raw, sizeof e);
    const std::uint64_t index = index_of(e);
    if (index >= bound)
      pm::throw_corrupt_value(log.file().path(), "gpmx.hcl.data",
                              fmt::format("{} of an undo entry of thread {} of block {}", what, thread, block), index,
                              bound_text);
  });
  return occupied;
}

}  // namespace gpmx::apps
