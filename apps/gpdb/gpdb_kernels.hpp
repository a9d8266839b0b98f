#pragma once
// gpDB's kernels, written once for every executor: the transactional batch
// and its recovery on the table in PM, and the CPU-assisted baseline's batch
// on a table in device memory. The batch's UPDATEs and INSERTs (and the
// baseline's table) are device memory, reached through global_span views.
#include <cstdint>

#include "common/careless_hcl.hpp"
#include "common/undo_occupied_slots.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/view.hpp"

namespace gpmx::apps::gpdb {

struct row {
  std::uint64_t id;     // the row's number, fixed at INSERT
  std::uint64_t key;    // a value derived from the id
  std::uint64_t value;  // what UPDATEs add to
  std::uint64_t stamp;  // the batch that last wrote the row, plus one
  bool operator==(const row&) const = default;
};

// UPDATE table SET value = value + delta, stamp = batch + 1 WHERE id = row.
struct update_op {
  std::uint64_t row;
  std::uint64_t delta;
};

// The row an UPDATE leaves (kernels and the reference share it).
GPMX_HD inline row updated(const row& old, const update_op& op, std::uint64_t batch) {
  return row{old.id, old.key, old.value + op.delta, batch + 1};
}

// What run_batch runs: the correct code, or a seeded bug (docs/workloads.md,
// "Seeded bugs").
enum class variant : std::uint8_t {
  correct,
  log_tail_first,  // epoch: an UPDATE's undo-log tail is persisted before the entry it names
};

// What an UPDATE logs before it changes a row: the row's index and old content.
struct undo_entry {
  std::uint64_t index;
  row old;
};

// One batch: thread i < updates.size() runs UPDATE i (the old row is logged
// before it changes), the others INSERT i - updates.size() beyond the
// persisted row count (invisible until the host moves the count).
struct batch_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const update_op> updates, global_span<const row> inserts,
                          pm::pm_span<row> table, std::uint64_t first_new, std::uint64_t batch, pm::hcl_view log,
                          pm::ordering order, variant bug) const {
    const std::uint64_t i = t.global_id(), nu = updates.size();
    if (i >= nu + inserts.size()) return;
    auto v = table.bind(t);
    if (i < nu) {  // UPDATE: the old row is logged before it changes
      const update_op u = updates.bind(t)[i];
      const row old = v[u.row];
      const undo_entry e{u.row, old};
      if (bug == variant::log_tail_first) careless::insert_tail_first(t, log, &e, sizeof e, order);
      else log.insert(t, &e, sizeof e, order);
      v[u.row] = updated(old, u, batch);
    } else {  // INSERT: beyond the persisted row count, invisible until the count moves
      const row r = inserts.bind(t)[i - nu];
      v[first_new + (i - nu)] = r;
    }
    // epoch: durable now; sbrp: durable by the kernel's end, before the host's commit.
    if (order == pm::ordering::epoch) t.gpm_persist();
  }
};

// Recovery: a thread per occupied log slot restores its rows, newest first.
struct recover_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const std::uint64_t> slots, pm::hcl_view log,
                          pm::pm_span<row> table) const {
    std::uint64_t slot = 0;
    if (!occupied_slot_of(t, slots, slot)) return;
    auto v = table.bind(t);
    undo_slot_newest_first<undo_entry>(t, log, slot, [&](const undo_entry& e) {
      v[e.index] = e.old;
      return true;
    });
  }
};

// The baseline's batch on a table in device memory: the same UPDATEs and
// INSERTs, nothing logged or persisted.
struct batch_dram_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const update_op> updates, global_span<const row> inserts,
                          global_span<row> table, std::uint64_t first_new, std::uint64_t batch) const {
    const std::uint64_t i = t.global_id(), nu = updates.size();
    if (i >= nu + inserts.size()) return;
    auto tab = table.bind(t);
    if (i < nu) {
      const update_op u = updates.bind(t)[i];
      tab[u.row] = updated(tab[u.row], u, batch);
    } else {
      const row r = inserts.bind(t)[i - nu];
      tab[first_new + (i - nu)] = r;
    }
  }
};

}  // namespace gpmx::apps::gpdb
