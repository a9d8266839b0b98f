#pragma once
// Hash-table inserts (the helper-warp paper's H1/H2): each transaction
// inserts one generated key with its value. An entry is two words (key,
// value; key 0 is empty). A key goes to its slot in the base table; when
// that is taken, it probes the extended table linearly from a second hash
// (the paper: a base table backed by an extended table that resolves
// collisions). Keys are distinct by construction, so a whole run holds
// every key exactly once, and any prefix holds exactly the keys of its
// transactions, each where a lookup finds it.
#include <cstdint>

#include "gpmx/exec/portability.hpp"
#include "gpmx/stm/stm_fail.hpp"
#include "gpmx/support/hash_mix.hpp"

namespace gpmx::apps::tx::hash {

struct table_shape {
  std::uint32_t base;      // entries in the base table
  std::uint32_t extended;  // entries in the extended table
  GPMX_HD std::uint64_t words() const { return 2 * (std::uint64_t(base) + extended); }
};

// A bijection on 32-bit words (every step is invertible) with 0 -> 0.
GPMX_HD inline std::uint32_t permute(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// The key of insert i: distinct for distinct i < 2^32 - 1 and never 0
// (i + 1 times an odd number is not 0 mod 2^32).
GPMX_HD inline std::uint32_t key_of(std::uint64_t seed, std::uint64_t i) {
  return permute(std::uint32_t(i + 1) * std::uint32_t(2 * seed + 1));
}
GPMX_HD inline std::uint32_t value_of(std::uint32_t key) { return std::uint32_t(mix64(key)) | 1u; }
GPMX_HD inline std::uint32_t base_slot(const table_shape& t, std::uint32_t key) {
  return std::uint32_t(mix64(key) % t.base);
}
GPMX_HD inline std::uint32_t extended_start(const table_shape& t, std::uint32_t key) {
  return std::uint32_t((mix64(key) >> 32) % t.extended);
}
// Entry e's key word (entries: the base table, then the extended one).
GPMX_HD inline std::uint32_t key_word(std::uint32_t entry) { return 2 * entry; }

// The most extended entries one insert probes: every probe takes an orec,
// and a transaction owns at most 32 (the base slot and the value word take
// two). At the paper's loads (at most 31% of the extended table) a longer
// run of taken entries does not occur in practice; one is reported.
inline constexpr std::uint32_t max_probes = 29;

// The insert with global index i (committer c's k-th in batch b).
GPMX_HD inline std::uint64_t insert_index(std::uint32_t committers, std::uint32_t per_thread, std::uint32_t c,
                                          std::uint32_t b, std::uint32_t k) {
  return (std::uint64_t(b) * committers + c) * per_thread + k;
}

struct body {
  static constexpr std::uint32_t max_writes = 2;
  table_shape table;
  std::uint32_t committers;  // in the whole grid
  std::uint32_t per_thread;
  std::uint64_t seed;
  template <class Tx>
  GPMX_HD void operator()(Tx& tx, std::uint32_t committer, std::uint32_t batch, std::uint32_t k) const {
    const std::uint32_t key = key_of(seed, insert_index(committers, per_thread, committer, batch, k));
    std::uint32_t entry = base_slot(table, key);
    std::uint32_t seen = tx.read(key_word(entry));
    std::uint32_t e = extended_start(table, key);
    for (std::uint32_t probe = 0; seen != 0 && seen != key; ++probe) {
      if (tx.failed()) return;
      if (probe == max_probes) stm::detail::stm_fail("a hash-table insert probed more extended entries than it can own", probe, max_probes);
      entry = table.base + e;
      seen = tx.read(key_word(entry));
      e = e + 1 == table.extended ? 0 : e + 1;
    }
    if (tx.failed() || seen == key) return;
    tx.write(key_word(entry), key);
    tx.write(key_word(entry) + 1, value_of(key));
  }
};

}  // namespace gpmx::apps::tx::hash
