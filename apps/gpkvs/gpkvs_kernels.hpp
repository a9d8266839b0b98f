#pragma once
// gpKVS's kernels, written once for every executor: the SET and GET batches
// on the table in PM, the recovery kernel, and the CPU-assisted baseline's
// SET and GET on a table in device memory. The batch's pairs and keys, the
// GET results and the baseline's table are device memory, reached through
// global_span views; the table in PM through pm_span; the undo log is HCL.
//
// Every function the kernels call is GPMX_HD (the key hash is a constexpr
// mixer, which nvcc compiles for the device with --expt-relaxed-constexpr).
#include <cstdint>

#include "common/careless_hcl.hpp"
#include "common/undo_occupied_slots.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/view.hpp"
#include "gpmx/support/hash_mix.hpp"

namespace gpmx::apps::gpkvs {

struct kv_pair {
  std::uint64_t key;  // 0: empty slot
  std::uint64_t value;
  bool operator==(const kv_pair&) const = default;
};
inline constexpr std::uint32_t ways = 8;

// What set_batch runs: the correct code, or a seeded bug (docs/workloads.md,
// "Seeded bugs").
enum class variant : std::uint8_t {
  correct,
  no_log_fence,  // sbrp: no oFence between the undo entry's tail and the new pair
};

// What a SET logs before it overwrites a way: the slot and its old pair.
struct undo_entry {
  std::uint64_t slot, key, value;
};

// The set of a key (keys are never 0).
GPMX_HD inline std::uint32_t set_of(std::uint64_t key, std::uint32_t sets) {
  return std::uint32_t(mix64_one_round(key) % sets);
}
// The way a SET of `key` takes in a set: the way holding the key, else the
// first empty way, else one chosen by the key's hash (an eviction).
GPMX_HD inline std::uint32_t choose_way(const kv_pair* set, std::uint64_t key) {
  for (std::uint32_t w = 0; w < ways; ++w)
    if (set[w].key == key) return w;
  for (std::uint32_t w = 0; w < ways; ++w)
    if (set[w].key == 0) return w;
  return std::uint32_t((mix64_one_round(key) >> 40) % ways);
}

// A batch of SETs: a group of `ways` threads per pair looks at the ways of
// the pair's set; the thread whose way is chosen undo-logs the old pair,
// then writes the new one.
struct set_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const kv_pair> batch, pm::pm_span<kv_pair> table, std::uint32_t sets,
                          pm::hcl_view log, pm::ordering order, variant bug) const {
    const std::uint64_t g = t.global_id() / ways;  // the pair this thread's group handles
    const std::uint32_t way = std::uint32_t(t.global_id() % ways);
    if (g >= batch.size()) return;
    const kv_pair p = batch.bind(t)[g];
    const std::uint64_t base = std::uint64_t(set_of(p.key, sets)) * ways;
    auto v = table.bind(t);
    // The group agrees on the way: every lane sees the same set.
    kv_pair set[ways];
    for (std::uint32_t w = 0; w < ways; ++w) set[w] = v[base + w];
    // No barrier is needed before the write: the choice depends only on the
    // 8-byte key words, and a lane that reads the set after the chosen lane
    // stored the pair's key sees the key in the chosen way and so chooses
    // that way too. Exactly one lane writes, with or without lockstep.
    if (choose_way(set, p.key) != way) return;
    const undo_entry e{base + way, set[way].key, set[way].value};
    if (bug == variant::no_log_fence) careless::insert_unfenced_tail(t, log, &e, sizeof e, order);
    else log.insert(t, &e, sizeof e, order);  // persists before the pair changes
    v[base + way] = p;
    // epoch: durable now; sbrp: durable by the kernel's end.
    if (order == pm::ordering::epoch) t.gpm_persist();
  }
};

// A batch of GETs: a thread per key; out[i] stays 0 where the key is
// absent. The table is the store's in PM (pm_span) or the baseline's in
// device memory (global_span): the lookup is the same.
struct get_kernel {
  template <class Ctx, class Table>
  GPMX_HD void operator()(Ctx& t, global_span<const std::uint64_t> keys, Table table, std::uint32_t sets,
                          global_span<std::uint64_t> out) const {
    const std::uint64_t i = t.global_id();
    if (i >= keys.size()) return;
    const auto tab = table.bind(t);
    auto o = out.bind(t);
    const std::uint64_t key = keys.bind(t)[i];
    const std::uint64_t base = std::uint64_t(set_of(key, sets)) * ways;
    for (std::uint32_t w = 0; w < ways; ++w) {
      const kv_pair p = tab[base + w];
      if (p.key == key) o[i] = p.value;
    }
  }
};

// Recovery: a thread per occupied log slot undoes its entries, newest first.
struct recover_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const std::uint64_t> slots, pm::hcl_view log,
                          pm::pm_span<kv_pair> table) const {
    std::uint64_t slot = 0;
    if (!occupied_slot_of(t, slots, slot)) return;
    auto v = table.bind(t);
    undo_slot_newest_first<undo_entry>(t, log, slot, [&](const undo_entry& e) {
      v[e.slot] = kv_pair{e.key, e.value};
      return true;
    });
  }
};

// The baseline's SET batch on a table in device memory (sets x ways pairs):
// the same placement, nothing logged or persisted.
struct set_dram_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const kv_pair> batch, global_span<kv_pair> table,
                          std::uint32_t sets) const {
    const std::uint64_t g = t.global_id() / ways;
    const std::uint32_t way = std::uint32_t(t.global_id() % ways);
    if (g >= batch.size()) return;
    const kv_pair p = batch.bind(t)[g];
    auto tab = table.bind(t);
    const std::uint64_t base = std::uint64_t(set_of(p.key, sets)) * ways;
    kv_pair seen[ways];
    for (std::uint32_t w = 0; w < ways; ++w) seen[w] = tab[base + w];
    if (choose_way(seen, p.key) == way) tab[base + way] = p;
  }
};

}  // namespace gpmx::apps::gpkvs
