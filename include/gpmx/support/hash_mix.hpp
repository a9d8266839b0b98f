#pragma once
// 64-bit integer mixers: deterministic, well-spread values from an index or
// a key. Workload data and the placement of keys in PM are derived from
// them, so their results must never change.
#include <cstdint>

namespace gpmx {

namespace detail {
// One round of MurmurHash3's finalizer: xor-shift, then multiply.
constexpr std::uint64_t mix_round(std::uint64_t k, std::uint64_t multiplier) { return (k ^ (k >> 33)) * multiplier; }
}  // namespace detail

// MurmurHash3's 64-bit finalizer (fmix64): every input bit affects every
// output bit.
constexpr std::uint64_t mix64(std::uint64_t k) {
  k = detail::mix_round(k, 0xff51afd7ed558ccdull);
  k = detail::mix_round(k, 0xc4ceb9fe1a85ec53ull);
  return k ^ (k >> 33);
}

// The finalizer with its first round only: cheaper and weaker. gpKVS places
// keys in sets and ways with it; a different mixer would move every key of a
// store already on disk.
constexpr std::uint64_t mix64_one_round(std::uint64_t k) {
  k = detail::mix_round(k, 0xff51afd7ed558ccdull);
  return k ^ (k >> 33);
}

}  // namespace gpmx
