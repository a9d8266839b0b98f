#include "checkpoint_copy.hpp"

#include <algorithm>
#include <cstring>

#include "gpmx/pm/crash_trigger.hpp"

namespace gpmx::pm {
namespace {

// Each thread stores through the raw pointer and persists its own chunk
// with the pool's domain, rather than storing element by element through a
// pm_span and calling gpm_persist: the flushed range is the same (exactly
// the bytes the thread wrote), but memcpy moves a chunk at memory speed
// while a tracked store records every word it writes.
struct copy_kernel {
  template <class Ctx>
  void operator()(Ctx& t, const copy_chunk* chunks, std::uint64_t n, const persist_domain* persist) const {
    const std::uint64_t i = t.global_id();
    if (i >= n) return;
    const copy_chunk& c = chunks[i];
    std::memcpy(c.dst, c.src, c.bytes);
    if (persist) {
      // The chunk's stores bypass the PM views, so mark the crash point
      // they would have made: a crash can land between chunks of a save.
      crash_trigger::point();
      persist->persist_range(c.dst, c.bytes);
    }
  }
};

}  // namespace

std::uint64_t chunk_bytes_for(std::uint64_t total, unsigned workers) {
  // Larger than GPM's 128 bytes: where the file is not on DAX PM each
  // persist is an msync call, and one per 128 bytes would dominate.
  const std::uint64_t want = total / (8 * std::uint64_t(std::max(workers, 1u)));
  return std::max<std::uint64_t>(4096, (want + 4095) / 4096 * 4096);
}

std::vector<copy_chunk> split(std::span<const copy_chunk> elements, std::uint64_t chunk_bytes) {
  std::vector<copy_chunk> out;
  for (const copy_chunk& e : elements)
    for (std::uint64_t at = 0; at < e.bytes; at += chunk_bytes)
      out.push_back({e.src + at, e.dst + at, std::min(chunk_bytes, e.bytes - at)});
  return out;
}

void parallel_copy(cpu::executor& ex, std::span<const copy_chunk> chunks, const persist_domain* persist,
                   const char* kernel_name) {
  if (chunks.empty()) return;
  constexpr std::uint32_t block = 64;
  const auto blocks = std::uint32_t((chunks.size() + block - 1) / block);
  ex.launch({dim3(blocks), dim3(block), 0, kernel_name}, copy_kernel{}, chunks.data(),
            std::uint64_t(chunks.size()), persist);
}

}  // namespace gpmx::pm
