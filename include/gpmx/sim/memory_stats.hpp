#pragma once
// What the memory-system timing model counted: cache hits and misses by
// memory space and operation, bytes per device and link, shared-memory bank
// conflicts, and bytes over time per device. to_json and format_table write
// it for a run's report.
#include <array>
#include <cstdint>
#include <string>

#include "gpmx/sim/bandwidth_server.hpp"
#include "gpmx/sim/time.hpp"

namespace gpmx::sim {

enum class op_class : std::uint8_t { load, store, atomic };
inline constexpr unsigned op_class_count = 3;
// The spaces caches see: global and pm (shared memory has its own counters).
inline constexpr unsigned cached_space_count = 2;

// Counted per line request (one coalesced line of one warp instruction).
struct cache_counters {
  std::uint64_t hits = 0;          // every requested sector present and its data there
  std::uint64_t pending_hits = 0;  // present but still on its way: merged with the miss in flight
  std::uint64_t misses = 0;        // some requested sector absent (stores: the line absent)
  std::uint64_t sector_hits = 0;
  std::uint64_t sector_misses = 0;
};

struct memory_stats {
  // [space: 0 global, 1 pm][op_class]
  std::array<std::array<cache_counters, op_class_count>, cached_space_count> l1{}, l2{};

  std::uint64_t warp_requests = 0;      // access() calls
  std::uint64_t line_requests = 0;      // after coalescing (global and pm)
  std::uint64_t sectors_requested = 0;  // after coalescing
  picos mshr_wait = 0;                  // time line requests waited for a free MSHR, summed
  std::uint64_t mshr_waits = 0;         // line requests that waited

  std::uint64_t l2_to_l1_bytes = 0;  // load and atomic data to the SMs
  std::uint64_t l1_to_l2_bytes = 0;  // store data, write-backs and atomic operands to the L2
  std::uint64_t gddr_read_bytes = 0, gddr_write_bytes = 0;
  std::uint64_t nvm_read_bytes = 0, nvm_write_bytes = 0;
  std::uint64_t pcie_to_gpu_bytes = 0, pcie_to_host_bytes = 0;
  std::uint64_t l1_writebacks = 0;   // dirty L1 lines written to the L2 (evictions and flushes)
  std::uint64_t l2_writebacks = 0;   // dirty L2 lines written to GDDR or NVM
  std::uint64_t host_atomics = 0;    // line requests of atomics executed at the host
  std::uint64_t pm_line_writes = 0;  // PM lines written through the L2 toward the persistence domain
  std::uint64_t host_pm_write_bytes = 0;  // persisted by host agents while kernels ran (in nvm_write_bytes too)
  std::uint64_t l1_invalidations = 0;  // L1 lines dropped by the persistency hardware

  std::uint64_t shared_accesses = 0;        // warp instructions
  std::uint64_t shared_conflict_cycles = 0; // sum of (degree - 1)

  // Bytes per bucket of stats.bucket_ns: all SM ports (both directions), all
  // GDDR channels, the NVM, and each PCIe direction.
  time_series icnt_bw, gddr_bw, nvm_bw, pcie_to_gpu_bw, pcie_to_host_bw;

  // Sums over spaces and operations.
  cache_counters l1_total() const;
  cache_counters l2_total() const;
};

std::string_view to_string(op_class o);

// The statistics as one JSON object (keys in a fixed order; the series as
// arrays of bytes per bucket with the bucket width in picoseconds).
std::string to_json(const memory_stats& s);
// A human-readable table of the counters (not the series).
std::string format_table(const memory_stats& s);

}  // namespace gpmx::sim
