#pragma once
// The analytics queries' kernel (taxi_table.hpp): a warp takes a cache
// line's worth of rows at a time (chunks grid-strided over the warps), its
// lanes 32 rows apart, so the distance column is read through a warp cursor
// that probes the cache once per line (reference reuse). Every row's
// distance is read; the cost columns only where the trip is long, which is
// where GPU-initiated access reads less than a tile of whole columns.
#include <algorithm>
#include <array>
#include <cstdint>

#include "bam/taxi_table.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/storage/array.hpp"

namespace gpmx::apps::bam {

// The columns on storage, through the page cache: the distance column
// through a warp cursor, the cost columns by warp-coalesced reads.
struct stored_columns {
  std::array<storage::array_view<std::uint64_t>, taxi_columns> col;
  template <class Ctx>
  GPMX_HD std::uint64_t read(Ctx& t, std::uint32_t c, std::uint64_t row) const {
    return col[c].read(t, row);
  }
  struct distance_reader {
    storage::warp_cursor<std::uint64_t> cursor;
    template <class Ctx>
    GPMX_HD std::uint64_t read(Ctx& t, std::uint64_t row) {
      return cursor.read(t, row);
    }
    template <class Ctx>
    GPMX_HD void done(Ctx& t) {
      cursor.done(t);
    }
  };
  GPMX_HD distance_reader distances() const { return {storage::warp_cursor<std::uint64_t>(col[0])}; }
};

// Columns in memory (a tile the host loaded, or a mapping), rows from `first`.
struct memory_columns {
  std::array<const std::uint64_t*, taxi_columns> col{};
  std::uint64_t first = 0;
  template <class Ctx>
  GPMX_HD std::uint64_t read(Ctx& t, std::uint32_t c, std::uint64_t row) const {
    const std::uint64_t* p = col[c] + (row - first);
    t.record_load(mem_space::global, p, sizeof(std::uint64_t));
    return *p;
  }
  struct distance_reader {
    const memory_columns* m;
    template <class Ctx>
    GPMX_HD std::uint64_t read(Ctx& t, std::uint64_t row) {
      return m->read(t, 0, row);
    }
    template <class Ctx>
    GPMX_HD void done(Ctx&) {}
  };
  GPMX_HD distance_reader distances() const { return {this}; }
};

// answer: trips, then the sums of columns 0..query over the long trips.
// chunk: rows per warp at a time (a cache line of the distance column).
template <class Columns>
struct query_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, Columns cols, std::uint64_t first, std::uint64_t rows, std::uint32_t query,
                  std::uint64_t chunk, std::uint64_t* answer) const {
    std::uint64_t trips = 0;
    std::array<std::uint64_t, taxi_columns> sums{};
    auto distances = cols.distances();
    const std::uint64_t chunks = (rows + chunk - 1) / chunk, warps = t.global_count() / 32;
    for (std::uint64_t k = t.global_id() / 32; k < chunks; k += warps) {
      const std::uint64_t end = first + std::min(rows, (k + 1) * chunk);
      for (std::uint64_t row = first + k * chunk + t.lane_id(); row < end; row += 32) {
        const std::uint64_t distance = distances.read(t, row);
        if (distance < long_trip) continue;
        ++trips;
        sums[0] += distance;
        for (std::uint32_t c = 1; c <= query; ++c) sums[c] += cols.read(t, c, row);
      }
      distances.done(t);
    }
    if (trips == 0) return;
    t.atomic_add(&answer[0], trips, memory_order::relaxed);
    for (std::uint32_t c = 0; c <= query; ++c) t.atomic_add(&answer[1 + c], sums[c], memory_order::relaxed);
  }
};

}  // namespace gpmx::apps::bam
