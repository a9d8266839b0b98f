#pragma once
// The NVRAM log: one PM region cut into streams, each written by one
// writer during an epoch (the time between two truncations): first one
// stream per block (its helper warp's), then one per committer (records a
// committer persists itself). Kernel and host code.
//
// A stream is written front to back and holds a whole launch's records,
// unless the geometry `wraps`: then each stream is a ring whose entries a
// truncator beside the launch reclaims once their records are applied to
// the home image (log_truncator.hpp). Positions count entries from the
// epoch's start and never wrap; entry `pos` lives in slot pos % size.
#include <cstdint>

#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/view.hpp"
#include "gpmx/stm/record_format.hpp"

namespace gpmx::stm {

struct log_geometry {
  std::uint32_t block_streams = 0;
  std::uint64_t block_stream_entries = 0;
  std::uint32_t thread_streams = 0;
  std::uint64_t thread_stream_entries = 0;
  bool wraps = false;  // streams are rings truncated while kernels run
  GPMX_HD std::uint64_t entries() const {
    return std::uint64_t(block_streams) * block_stream_entries + std::uint64_t(thread_streams) * thread_stream_entries;
  }
  GPMX_HD std::uint32_t streams() const { return block_streams + thread_streams; }
  // Where stream i starts and how long it is (block streams first).
  GPMX_HD std::uint64_t stream_start(std::uint32_t i) const {
    return i < block_streams ? std::uint64_t(i) * block_stream_entries
                             : std::uint64_t(block_streams) * block_stream_entries +
                                   std::uint64_t(i - block_streams) * thread_stream_entries;
  }
  GPMX_HD std::uint64_t stream_entries(std::uint32_t i) const {
    return i < block_streams ? block_stream_entries : thread_stream_entries;
  }
};

struct tx_log {
  pm::pm_span<log_entry> entries;  // the whole log region (geometry.entries() of it)
  log_geometry geometry;
  std::uint64_t epoch = 0;  // folded into every mark
  // When the geometry wraps, per stream in device memory: the position up
  // to which the truncator has reclaimed the ring (writers wait for room
  // behind it), and the position up to which the writer's records are
  // durable (the truncator reads no further). Null otherwise.
  std::uint64_t* reclaimed = nullptr;
  std::uint64_t* durable_end = nullptr;
  GPMX_HD pm::pm_span<log_entry> block_stream(std::uint32_t block) const {
    return entries.subspan(geometry.stream_start(block), geometry.block_stream_entries);
  }
  GPMX_HD pm::pm_span<log_entry> thread_stream(std::uint32_t committer) const {
    const std::uint32_t i = geometry.block_streams + committer;
    return entries.subspan(geometry.stream_start(i), geometry.thread_stream_entries);
  }
  GPMX_HD std::uint32_t block_stream_index(std::uint32_t block) const { return block; }
  GPMX_HD std::uint32_t thread_stream_index(std::uint32_t committer) const {
    return geometry.block_streams + committer;
  }
};

}  // namespace gpmx::stm
