#pragma once
// The level kernel of the level-synchronous BFS, written once for every
// executor. A thread per node of the level's frontier claims each unvisited
// neighbour with an atomic on a device-memory flag; the claiming thread (one
// per node, whatever the interleaving) stores the node's level and its
// frontier slot in PM. The last block to finish writes the level's commit
// word. The ordering points are the named functions below. The graph is
// device memory, read through global_span views.
#include <cstdint>

#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/view.hpp"

namespace gpmx::apps::bfs {

// The commit word: the level whose frontier is complete, and that frontier's size.
GPMX_HD inline std::uint64_t pack_progress(std::uint32_t level, std::uint32_t frontier_size) {
  return (std::uint64_t(level) << 32) | frontier_size;
}

struct level_args {
  std::uint32_t level;          // the frontier's level; discoveries get level + 1
  std::uint32_t frontier_size;  // nodes in frontier_in
  std::uint32_t blocks;         // blocks of this launch
  pm::pm_span<std::uint32_t> frontier_in, frontier_out, cost;
  pm::pm_ptr<std::uint64_t> progress;
  global_span<const std::uint64_t> offsets;  // the graph, read-only, in device memory
  global_span<const std::uint32_t> targets;
  std::uint32_t* visited;         // device memory: 1 once a node is claimed
  std::uint32_t* next_size;       // device memory: discoveries of this level
  std::uint32_t* blocks_done;     // device memory: blocks past their discoveries
  std::uint32_t* block_released;  // device memory, per block: level + 1 once released (sbrp)
  pm::ordering o;
  // The seeded bug no-discovery-persist (epoch): threads skip the persist
  // barrier before the block barrier.
  bool no_discovery_persist = false;
};

// Ordering points 1-3: every discovery of every block persists before the
// level's commit word, which the last block to arrive writes.
// epoch: each thread's persist barrier makes its discoveries durable; the
// block barrier and the acq_rel count of finished blocks carry that to the
// last block (rule E: durable, then happens-before).
// sbrp: the block barrier releases each thread's stores to thread 0 at block
// scope; thread 0 releases them (cumulatively) at device scope with prel; the
// last block's thread 0 acquires every block's release with pacq, so the
// commit word is ordered after all of them.
// Returns whether the caller is the one thread that writes the commit word.
template <class Ctx>
GPMX_HD bool order_discoveries_before_commit(Ctx& t, const level_args& a) {
  if (a.o == pm::ordering::epoch && !a.no_discovery_persist) t.gpm_persist();
  t.syncthreads();
  if (t.thread_rank() != 0) return false;
  if (a.o == pm::ordering::sbrp) t.prel(scope::device, &a.block_released[t.block_rank()], a.level + 1);
  const std::uint32_t finished = t.atomic_add(a.blocks_done, 1u, memory_order::acq_rel, scope::device);
  if (finished + 1 != a.blocks) return false;
  if (a.o == pm::ordering::sbrp)
    for (std::uint32_t b = 0; b < a.blocks; ++b)
      t.spin_wait([&] { return t.pacq(scope::device, &a.block_released[b]) == a.level + 1; });
  return true;
}

// Ordering point 4: the commit word persists. epoch: GPM's barrier; sbrp: the
// kernel's end, which the host waits for before reading the word.
template <class Ctx>
GPMX_HD void persist_commit(Ctx& t, pm::ordering o) {
  if (o == pm::ordering::epoch) t.gpm_persist();
}

struct level_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const level_args& a) const {
    const std::uint64_t i = t.global_id();
    if (i < a.frontier_size) {
      const auto in = a.frontier_in.bind(t);
      const auto out = a.frontier_out.bind(t);
      const auto cost = a.cost.bind(t);
      const auto offsets = a.offsets.bind(t);
      const auto targets = a.targets.bind(t);
      const std::uint32_t v = in[i];
      const std::uint64_t first = offsets[v], last = offsets[v + 1];
      for (std::uint64_t e = first; e < last; ++e) {
        const std::uint32_t u = targets[e];
        if (t.atomic_load(&a.visited[u], memory_order::relaxed) != 0) continue;
        // One thread wins u, so u's two PM stores happen once per run of the
        // level, whichever thread that is: the store count is fixed.
        if (t.atomic_cas(&a.visited[u], 0u, 1u) != 0) continue;
        const std::uint32_t slot = t.atomic_add(a.next_size, 1u);
        cost[u] = a.level + 1;
        out[slot] = u;
      }
    }
    if (!order_discoveries_before_commit(t, a)) return;
    const std::uint32_t size = t.atomic_load(a.next_size, memory_order::acquire, scope::device);
    a.progress.bind(t) = pack_progress(a.level + 1, size);
    persist_commit(t, a.o);
  }
};

}  // namespace gpmx::apps::bfs
