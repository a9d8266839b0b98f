#pragma once
// The ways a graph kernel's threads read the stored edge array, from the
// paper's ablation (002_..., Figure 8) plus the page-fault analogue of
// unified memory. Each is a small value passed to the kernel; a thread makes
// its own reader from it, reads edges with read(t, i) and calls done(t)
// when it moves to another vertex.
//   none       every edge an NVMe READ of its 512-byte block (no cache)
//   naive      the page cache, each thread probing it alone
//   coalesced  the page cache, the lanes wanting one page probing once
//   reuse      coalesced, and each thread keeps its page pinned while its
//              next edges stay in it (reference reuse)
//   mmap       the device file mapped: the OS pages it in on faults
//   tiling     the CPU-initiated baseline: the host loads the edges a tile
//              at a time and launches the kernel on each tile
#include <cstddef>
#include <cstdint>

#include "bam/storage_layout.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/storage/array.hpp"
#include "gpmx/storage/uncached_read.hpp"

namespace gpmx::apps::bam {

enum class edge_method : std::uint32_t { none = 0, naive = 1, coalesced = 2, reuse = 3, mmap = 4, tiling = 5 };

struct uncached_edges {
  storage::array_view<std::uint32_t> a;
  std::byte* buffers;  // lba_bytes per thread of the launch
  struct reader {
    const uncached_edges* s;
    template <class Ctx>
    GPMX_HD std::uint32_t read(Ctx& t, std::uint64_t i) {
      return storage::read_uncached(t, s->a, i, s->buffers + t.global_id() * lba_bytes);
    }
    template <class Ctx>
    GPMX_HD void done(Ctx&) {}
  };
  GPMX_HD reader make() const { return {this}; }
};

struct naive_edges {
  storage::array_view<std::uint32_t> a;
  struct reader {
    const naive_edges* s;
    template <class Ctx>
    GPMX_HD std::uint32_t read(Ctx& t, std::uint64_t i) {
      return s->a.read_alone(t, i);
    }
    template <class Ctx>
    GPMX_HD void done(Ctx&) {}
  };
  GPMX_HD reader make() const { return {this}; }
};

struct coalesced_edges {
  storage::array_view<std::uint32_t> a;
  struct reader {
    const coalesced_edges* s;
    template <class Ctx>
    GPMX_HD std::uint32_t read(Ctx& t, std::uint64_t i) {
      return s->a.read(t, i);
    }
    template <class Ctx>
    GPMX_HD void done(Ctx&) {}
  };
  GPMX_HD reader make() const { return {this}; }
};

struct reused_edges {
  storage::array_view<std::uint32_t> a;
  struct reader {
    storage::warp_cursor<std::uint32_t> c;
    template <class Ctx>
    GPMX_HD std::uint32_t read(Ctx& t, std::uint64_t i) {
      return c.read(t, i);
    }
    template <class Ctx>
    GPMX_HD void done(Ctx& t) {
      c.done(t);
    }
  };
  GPMX_HD reader make() const { return {storage::warp_cursor<std::uint32_t>(a)}; }
};

// Edges in memory: a mapping of the whole array (first = 0) or a tile the
// host loaded, holding edges from `first` on.
struct mapped_edges {
  const std::uint32_t* edges;
  std::uint64_t first = 0;
  struct reader {
    const std::uint32_t* edges;
    std::uint64_t first;
    template <class Ctx>
    GPMX_HD std::uint32_t read(Ctx& t, std::uint64_t i) {
      const std::uint32_t* p = edges + (i - first);
      t.record_load(mem_space::global, p, sizeof(std::uint32_t));
      return *p;
    }
    template <class Ctx>
    GPMX_HD void done(Ctx&) {}
  };
  GPMX_HD reader make() const { return {edges, first}; }
};

}  // namespace gpmx::apps::bam
