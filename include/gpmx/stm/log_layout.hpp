#pragma once
// The NVRAM log: one PM region cut into streams, each written front to back
// by one writer during an epoch (the time between two truncations): first
// one stream per block (its helper warp's), then one per committer (records
// a committer persists itself). Kernel and host code.
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
  GPMX_HD pm::pm_span<log_entry> block_stream(std::uint32_t block) const {
    return entries.subspan(geometry.stream_start(block), geometry.block_stream_entries);
  }
  GPMX_HD pm::pm_span<log_entry> thread_stream(std::uint32_t committer) const {
    const std::uint32_t i = geometry.block_streams + committer;
    return entries.subspan(geometry.stream_start(i), geometry.thread_stream_entries);
  }
};

}  // namespace gpmx::stm
