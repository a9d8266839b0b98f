#pragma once
// A 64-bit hash of large buffers at memory speed, for checksums of whole
// data copies (a checkpoint copy's seal). Four independent lanes take
// 8-byte words, so the multiplies overlap; the byte-serial FNV-1a of
// format.hpp would cost more than the write it guards for megabytes.
// Detects torn and damaged copies, not an adversary. Chaining calls
// (the result of one as the seed of the next) hashes a sequence of buffers.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gpmx::pm {

inline std::uint64_t content_hash(const void* data, std::size_t bytes, std::uint64_t seed) {
  constexpr std::uint64_t k = 0x9e3779b97f4a7c15ull;
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t lane[4] = {seed ^ 0x243f6a8885a308d3ull, seed ^ 0x13198a2e03707344ull, seed ^ 0xa4093822299f31d0ull,
                           seed ^ 0x082efa98ec4e6c89ull};
  std::size_t i = 0;
  for (; i + 32 <= bytes; i += 32)
    for (int l = 0; l < 4; ++l) {
      std::uint64_t w;
      std::memcpy(&w, p + i + 8 * std::size_t(l), 8);
      lane[l] = (lane[l] ^ w) * k;
      lane[l] ^= lane[l] >> 29;
    }
  std::uint64_t h = seed ^ (std::uint64_t(bytes) * k);
  for (std::uint64_t v : lane) h = ((h ^ v) * k) ^ (h >> 31);
  for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  h ^= h >> 33;
  return h * 0xff51afd7ed558ccdull;
}

}  // namespace gpmx::pm
