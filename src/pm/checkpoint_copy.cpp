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

// A block per chunk, as a GPU copies: 16-byte words when the chunk allows,
// else bytes, then a system-scope fence that makes the stores reach the host.
struct block_copy_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, const copy_chunk* chunks, bool persist) const {
    const copy_chunk c = chunks[t.block_rank()];
    const std::uint32_t step = std::uint32_t(t.block_dim().count());
    const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    if (aligned(c.src) && aligned(c.dst) && c.bytes % 16 == 0) {
      struct alignas(16) word { std::uint64_t a, b; };
      const auto* s = reinterpret_cast<const word*>(c.src);
      auto* d = reinterpret_cast<word*>(c.dst);
      for (std::uint64_t i = t.thread_rank(); i < c.bytes / 16; i += step) d[i] = s[i];
    } else {
      for (std::uint64_t i = t.thread_rank(); i < c.bytes; i += step) c.dst[i] = c.src[i];
    }
    if (persist) t.fence(scope::system);
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

void parallel_copy(const launch_target& ex, std::span<const copy_chunk> chunks, const persist_domain* persist,
                   const char* kernel_name) {
  if (chunks.empty()) return;
  if (ex.on_gpu()) {
    // Elements the GPU cannot reach (a host variable registered with the
    // checkpoint, such as a progress record) are copied by the host.
    kernel_vector<copy_chunk> list;
    for (const copy_chunk& c : chunks) {
      if (ex.gpu()->reaches(c.src, c.bytes) && ex.gpu()->reaches(c.dst, c.bytes)) {
        list.push_back(c);
        continue;
      }
      std::memcpy(c.dst, c.src, c.bytes);
      if (persist) persist->persist_range(c.dst, c.bytes);
    }
    if (!list.empty())
      ex.launch({dim3(std::uint32_t(list.size())), dim3(256), 0, kernel_name}, block_copy_kernel{}, list.data(),
                persist != nullptr);
    if (persist) crash_trigger::point();  // the host sees the whole copy land at once
    return;
  }
  constexpr std::uint32_t block = 64;
  const auto blocks = std::uint32_t((chunks.size() + block - 1) / block);
  ex.cpu().launch({dim3(blocks), dim3(block), 0, kernel_name}, copy_kernel{}, chunks.data(),
            std::uint64_t(chunks.size()), persist);
}

}  // namespace gpmx::pm
