#pragma once
// The cuckoo hashmap's kernels, written once for every executor (cuckoo.hpp
// gives the placement rules they follow). The batch, the pending lists, the
// found slots and the claim tags are device memory, reached through
// global_span views (claims are written by atomics on the raw pointer); the
// table is PM; undo entries go to HCL.
#include <cstdint>

#include "common/undo_occupied_slots.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/view.hpp"
#include "hashmap/cuckoo.hpp"

namespace gpmx::apps::hashmap {

// A found slot of a key that round 0 did not find.
inline constexpr std::uint64_t no_slot = ~std::uint64_t(0);

// What a thread logs before it overwrites a slot, tagged with the round.
struct undo_entry {
  std::uint64_t slot;
  entry old;
  std::uint64_t round;
};

// Larger for a later round, and within a round for a lower index.
GPMX_HD inline std::uint64_t claim_tag(std::uint64_t epoch, std::uint64_t i) {
  return (epoch << 32) | (0xffffffffull - i);
}

// The undo-logged overwrite of one slot: the old content first. The seeded
// bug log_after_update writes the slot before it logs the old content.
template <class Ctx, class View>
GPMX_HD void overwrite_slot(Ctx& t, View& v, const pm::hcl_view& log, std::uint64_t s, const entry& old,
                            const entry& now, std::uint64_t round, pm::ordering order, bool log_after_update) {
  const undo_entry e{s, old, round};
  if (log_after_update) v[s] = now;
  log.insert(t, &e, sizeof e, order);  // persists before the slot changes
  if (!log_after_update) v[s] = now;
  // epoch: durable now; sbrp: durable by the kernel's end, before the next round.
  if (order == pm::ordering::epoch) t.gpm_persist();
}

// Round 0, reads: which keys are present (found[i] is the slot), where the
// others aim (now[i]; key 0 for a key found).
struct find_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const entry> batch, pm::pm_span<entry> table, std::uint64_t slots,
                          global_span<pending> now, global_span<std::uint64_t> found) const {
    const std::uint64_t i = t.global_id();
    if (i >= batch.size()) return;
    const auto v = table.bind(t);
    const entry in = batch.bind(t)[i];
    bool hit = false;
    std::uint64_t s = 0;
    now.bind(t)[i] = first_round(v, slots, in.key, in.value, s, hit);
    if (hit) found.bind(t)[i] = s;
  }
};

// Round 0, writes: new values of present keys, in place.
struct update_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const entry> batch, global_span<const std::uint64_t> found,
                          pm::pm_span<entry> table, pm::hcl_view log, pm::ordering order, bool late_log) const {
    const std::uint64_t i = t.global_id();
    if (i >= batch.size()) return;
    const std::uint64_t s = found.bind(t)[i];
    if (s == no_slot) return;
    auto v = table.bind(t);
    const entry in = batch.bind(t)[i];
    overwrite_slot(t, v, log, s, v[s], in, 0, order, late_log);
  }
};

// Round r >= 1, first half: every pending entry claims the slot it aims at.
struct claim_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const pending> now, std::uint64_t slots, std::uint64_t* claims,
                          std::uint64_t epoch) const {
    const std::uint64_t i = t.global_id();
    if (i >= now.size()) return;
    const pending me = now.bind(t)[i];
    t.atomic_max(&claims[slot_of(me.key, me.fn, slots)], claim_tag(epoch, i));
  }
};

// Round r >= 1, second half: the winner of a slot takes it and hands on the
// entry it displaced; a loser aims at its next hash function.
struct place_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const pending> now, std::uint64_t slots,
                          global_span<const std::uint64_t> claims, std::uint64_t epoch, pm::pm_span<entry> table,
                          pm::hcl_view log, std::uint64_t round, pm::ordering order, bool late_log,
                          global_span<pending> next) const {
    const std::uint64_t i = t.global_id();
    if (i >= now.size()) return;
    const pending me = now.bind(t)[i];
    const std::uint64_t s = slot_of(me.key, me.fn, slots);
    auto out = next.bind(t);
    if (claims.bind(t)[s] != claim_tag(epoch, i)) {  // lost: aim at the next hash function
      out[i] = pending{me.key, me.value, (me.fn + 1) % hash_functions};
      return;
    }
    auto v = table.bind(t);
    const entry old = v[s];
    overwrite_slot(t, v, log, s, old, entry{me.key, me.value}, round, order, late_log);
    if (old.key != 0) out[i] = pending{old.key, old.value, next_fn_after(old.key, s, slots)};
  }
};

// Recovery of one round: a thread per occupied log slot undoes the slot's
// entry of that round.
struct undo_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const std::uint64_t> slots, pm::hcl_view log,
                          pm::pm_span<entry> table, std::uint64_t round) const {
    std::uint64_t slot = 0;
    if (!occupied_slot_of(t, slots, slot)) return;
    auto v = table.bind(t);
    // A thread logs at most once per round, in round order: its newest
    // entry is the only one of this round.
    undo_slot_newest_first<undo_entry>(t, log, slot, [&](const undo_entry& e) {
      if (e.round != round) return false;
      v[e.slot] = e.old;
      return true;
    });
  }
};

// Values of the keys (out[i] stays 0 where absent).
struct lookup_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const std::uint64_t> keys, pm::pm_span<entry> table,
                          std::uint64_t slots, global_span<std::uint64_t> out) const {
    const std::uint64_t i = t.global_id();
    if (i >= keys.size()) return;
    const auto v = table.bind(t);
    auto o = out.bind(t);
    const std::uint64_t key = keys.bind(t)[i];
    for (std::uint64_t f = 0; f < hash_functions; ++f) {
      const entry e = v[slot_of(key, f, slots)];
      if (e.key == key) o[i] = e.value;
    }
  }
};

}  // namespace gpmx::apps::hashmap
