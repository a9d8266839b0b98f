#pragma once
// BFS and connected components over a CSR graph whose edge array is stored
// (read through one of edge_access.hpp's readers) and whose offsets and
// per-node results are in device memory. A warp takes one node at a time
// (nodes grid-strided over the warps) and its lanes read the node's edges
// 32 apart, so a warp walks an adjacency list in step, as BaM's and
// EMOGI's graph kernels do.
#include <cstdint>

#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"

namespace gpmx::apps::bam {

inline constexpr std::uint32_t not_reached = 0xffffffffu;

// The part of the graph one launch covers: nodes [v_begin, v_end) and, of
// their edges, those in [e_begin, e_end). The whole graph for every method
// but tiling, which launches once per tile of edges the host loaded.
struct graph_window {
  std::uint64_t v_begin = 0, v_end = 0, e_begin = 0, e_end = 0;
};

// One level of a top-down BFS: every node at `level` labels its unreached
// neighbours level + 1; `found` counts the nodes labelled.
template <class Access>
struct bfs_level_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, Access access, graph_window w, const std::uint64_t* offsets, std::uint32_t* levels,
                  std::uint32_t level, std::uint64_t* found, std::uint64_t* scanned) const {
    auto reader = access.make();
    const std::uint64_t warps = t.global_count() / 32;
    std::uint64_t labelled = 0, edges = 0;
    for (std::uint64_t v = w.v_begin + t.global_id() / 32; v < w.v_end; v += warps) {
      if (t.atomic_load(&levels[v], memory_order::relaxed) != level) continue;
      const std::uint64_t end = offsets[v + 1] < w.e_end ? offsets[v + 1] : w.e_end;
      for (std::uint64_t e = (offsets[v] > w.e_begin ? offsets[v] : w.e_begin) + t.lane_id(); e < end; e += 32) {
        const std::uint32_t u = reader.read(t, e);
        ++edges;
        if (t.atomic_load(&levels[u], memory_order::relaxed) == not_reached &&
            t.atomic_cas(&levels[u], not_reached, level + 1, memory_order::relaxed) == not_reached)
          ++labelled;
      }
      reader.done(t);
    }
    if (labelled != 0) t.atomic_add(found, labelled, memory_order::relaxed);
    if (edges != 0) t.atomic_add(scanned, edges, memory_order::relaxed);
  }
};

// Connected components, hooking step (Soman et al.'s scheme): for every edge
// whose ends carry different labels, the larger label's node takes the
// smaller label. Labels only fall and always name a node of the same
// component; `changed` counts the hooks that lowered one.
template <class Access>
struct cc_hook_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, Access access, graph_window w, const std::uint64_t* offsets, std::uint32_t* labels,
                  std::uint64_t* changed, std::uint64_t* scanned) const {
    auto reader = access.make();
    const std::uint64_t warps = t.global_count() / 32;
    std::uint64_t hooks = 0, edges = 0;
    for (std::uint64_t v = w.v_begin + t.global_id() / 32; v < w.v_end; v += warps) {
      const std::uint64_t end = offsets[v + 1] < w.e_end ? offsets[v + 1] : w.e_end;
      for (std::uint64_t e = (offsets[v] > w.e_begin ? offsets[v] : w.e_begin) + t.lane_id(); e < end; e += 32) {
        const std::uint32_t u = reader.read(t, e);
        ++edges;
        const std::uint32_t lv = t.atomic_load(&labels[v], memory_order::relaxed);
        const std::uint32_t lu = t.atomic_load(&labels[u], memory_order::relaxed);
        if (lu == lv) continue;
        const std::uint32_t high = lu > lv ? lu : lv, low = lu > lv ? lv : lu;
        if (t.atomic_min(&labels[high], low, memory_order::relaxed) > low) ++hooks;
      }
      reader.done(t);
    }
    if (hooks != 0) t.atomic_add(changed, hooks, memory_order::relaxed);
    if (edges != 0) t.atomic_add(scanned, edges, memory_order::relaxed);
  }
};

// Pointer jumping: every node's label becomes the root of its label chain
// (a label that is its own label). Runs between hooking steps, so after it
// every label is a root.
struct cc_jump_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t nodes, std::uint32_t* labels) const {
    for (std::uint64_t v = t.global_id(); v < nodes; v += t.global_count()) {
      std::uint32_t l = t.atomic_load(&labels[v], memory_order::relaxed);
      for (std::uint32_t next; (next = t.atomic_load(&labels[l], memory_order::relaxed)) != l;) l = next;
      t.atomic_store(&labels[v], l, memory_order::relaxed);
    }
  }
};

}  // namespace gpmx::apps::bam
