#pragma once
// The paper's no-cache baseline (002_..., Figure 8): a thread reads one
// element of an array straight from its device, with one READ of the single
// logical block that holds it, into a buffer of its own. Nothing is shared
// or kept, so every access is an I/O command; the cache's line size and
// layout only say where the element lives.
#include <cstddef>
#include <cstdint>

#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/portability.hpp"
#include "gpmx/storage/array.hpp"

namespace gpmx::storage {

// `buffer`: one logical block of the range's devices, the caller's own
// (aligned as the device needs: 512 bytes for O_DIRECT).
template <class T, class Ctx>
GPMX_HD T read_uncached(Ctx& t, const array_view<T>& a, std::uint64_t i, std::byte* buffer) {
  const range_view& r = a.cache.ranges[a.range];
  const std::uint32_t line = a.cache.line_bytes;
  const std::uint32_t block = line / r.blocks_per_page;
  const std::uint64_t byte = i * sizeof(T);
  const std::uint64_t page = byte / line;
  const std::uint32_t device =
      r.layout == distribution::replicate ? std::uint32_t(t.global_id() % r.devices) : std::uint32_t(page % r.devices);
  const std::uint64_t page_on_device = r.layout == distribution::replicate ? page : page / r.devices;
  const std::uint64_t slba = r.first_lba + page_on_device * r.blocks_per_page + (byte % line) / block;
  detail::block_io(t, a.cache, r, device, slba, 1, buffer, nvme_opcode::read);
  const T* p = reinterpret_cast<const T*>(buffer + byte % block);
  t.record_load(mem_space::global, p, sizeof(T));
  return *p;
}

}  // namespace gpmx::storage
