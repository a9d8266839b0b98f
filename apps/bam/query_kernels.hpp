#pragma once
// The analytics queries' kernel (taxi_table.hpp): a thread per row, rows
// grid-strided so a warp's lanes take consecutive rows. Every row's
// distance is read; the cost columns only where the trip is long, which is
// where GPU-initiated access reads less than a tile of whole columns.
#include <array>
#include <cstdint>

#include "bam/taxi_table.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/storage/array.hpp"

namespace gpmx::apps::bam {

// The columns on storage, through the page cache (warp-coalesced reads).
struct stored_columns {
  std::array<storage::array_view<std::uint64_t>, taxi_columns> col;
  template <class Ctx>
  std::uint64_t read(Ctx& t, std::uint32_t c, std::uint64_t row) const {
    return col[c].read(t, row);
  }
};

// Columns in memory (a tile the host loaded, or a mapping), rows from `first`.
struct memory_columns {
  std::array<const std::uint64_t*, taxi_columns> col{};
  std::uint64_t first = 0;
  template <class Ctx>
  std::uint64_t read(Ctx& t, std::uint32_t c, std::uint64_t row) const {
    const std::uint64_t* p = col[c] + (row - first);
    t.record_load(mem_space::global, p, sizeof(std::uint64_t));
    return *p;
  }
};

// answer: trips, then the sums of columns 0..query over the long trips.
template <class Columns>
struct query_kernel {
  template <class Ctx>
  void operator()(Ctx& t, Columns cols, std::uint64_t first, std::uint64_t rows, std::uint32_t query,
                  std::uint64_t* answer) const {
    std::uint64_t trips = 0;
    std::array<std::uint64_t, taxi_columns> sums{};
    for (std::uint64_t row = first + t.global_id(); row < first + rows; row += t.global_count()) {
      const std::uint64_t distance = cols.read(t, 0, row);
      if (distance < long_trip) continue;
      ++trips;
      sums[0] += distance;
      for (std::uint32_t c = 1; c <= query; ++c) sums[c] += cols.read(t, c, row);
    }
    if (trips == 0) return;
    t.atomic_add(&answer[0], trips, memory_order::relaxed);
    for (std::uint32_t c = 0; c <= query; ++c) t.atomic_add(&answer[1 + c], sums[c], memory_order::relaxed);
  }
};

}  // namespace gpmx::apps::bam
