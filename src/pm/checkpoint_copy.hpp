#pragma once
// The parallel copy behind checkpoint save and restore: a gpmx kernel in
// which each thread copies one chunk, as GPM launches a GPU kernel.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gpmx/exec/launch_target.hpp"
#include "gpmx/exec/persist_domain.hpp"

namespace gpmx::pm {

struct copy_chunk {
  const std::byte* src;
  std::byte* dst;
  std::uint64_t bytes;
};

// Chunk size for `total` bytes over `workers` workers: a multiple of 4096
// (so 128-byte aligned elements give 128-byte aligned chunks), about eight
// chunks per worker, never below 4096.
std::uint64_t chunk_bytes_for(std::uint64_t total, unsigned workers);

// Splits each element copy into chunks of at most chunk_bytes.
std::vector<copy_chunk> split(std::span<const copy_chunk> elements, std::uint64_t chunk_bytes);

// Copies every chunk; returns when all are copied and, with a domain,
// durable. On the cpu executor one kernel thread copies a chunk and persists
// it; on a GPU one block copies a chunk with coalesced 16-byte stores and a
// system-scope fence, and the kernel's end flushes the pools (gpu_session).
void parallel_copy(const launch_target& ex, std::span<const copy_chunk> chunks, const persist_domain* persist,
                   const char* kernel_name);

}  // namespace gpmx::pm
