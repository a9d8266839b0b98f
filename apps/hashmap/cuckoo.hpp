#pragma once
// The placement rules of the cuckoo hashmap, shared by its kernels and by
// the sequential reference so both place every key in the same slot.
//
// A table of single-entry slots and three hash functions. A batch of
// distinct keys is inserted in deterministic rounds:
//   round 0: a key already in one of its three slots gets its new value
//            there; any other key becomes pending, aimed at the first of its
//            slots that is empty (else at its first slot);
//   round r >= 1: every pending entry claims the slot it aims at; the claim
//            of the lowest pending index wins (an atomic max over a tag that
//            is larger for lower indices). The winner takes the slot; the
//            entry it displaced (if any) becomes pending, aimed at the
//            displaced key's next hash function; a loser stays pending,
//            aimed at its own next hash function.
// The next round's pending list keeps the order of the indices. Winners
// and displaced entries follow from the round's inputs alone, so the stores
// of a batch (hence its crash points) do not depend on thread interleaving.
#include <cstdint>
#include <vector>

#include "gpmx/exec/portability.hpp"

namespace gpmx::apps::hashmap {

struct entry {
  std::uint64_t key;  // 0: empty slot
  std::uint64_t value;
  bool operator==(const entry&) const = default;
};

// An entry looking for a slot, and the hash function it tries next.
struct pending {
  std::uint64_t key;  // 0: nothing pending here
  std::uint64_t value;
  std::uint64_t fn;
};

inline constexpr std::uint32_t hash_functions = 3;
// Rounds after which a batch gives up (far more than a table at most half
// full needs).
inline constexpr std::uint32_t max_rounds = 48;

GPMX_HD inline std::uint64_t slot_of(std::uint64_t key, std::uint64_t fn, std::uint64_t slots) {
  std::uint64_t k = key + (fn + 1) * 0x9e3779b97f4a7c15ull;
  k ^= k >> 31;
  k *= 0xbf58476d1ce4e5b9ull;
  k ^= k >> 29;
  k *= 0x94d049bb133111ebull;
  k ^= k >> 32;
  return k % slots;
}

// The hash function a key displaced from slot s tries next.
GPMX_HD inline std::uint64_t next_fn_after(std::uint64_t key, std::uint64_t s, std::uint64_t slots) {
  for (std::uint64_t f = 0; f < hash_functions; ++f)
    if (slot_of(key, f, slots) == s) return (f + 1) % hash_functions;
  return 0;
}

// Round 0 for one key, given the table as it was before the batch: returns
// the slot holding the key (its value is replaced in place) or, with
// found = false, the pending entry for the later rounds.
template <class Table>
GPMX_HD pending first_round(const Table& table, std::uint64_t slots, std::uint64_t key, std::uint64_t value,
                            std::uint64_t& found_slot, bool& found) {
  std::uint64_t aim = hash_functions;
  for (std::uint64_t f = 0; f < hash_functions; ++f) {
    const std::uint64_t s = slot_of(key, f, slots);
    const entry e = table[s];
    if (e.key == key) {
      found_slot = s;
      found = true;
      return pending{0, 0, 0};
    }
    if (e.key == 0 && aim == hash_functions) aim = f;
  }
  found = false;
  return pending{key, value, aim == hash_functions ? 0 : aim};
}

// The sequential reference: inserts a batch of distinct keys into `table`
// with the rules above. Returns false if the batch did not settle within
// max_rounds (the table is too full).
bool apply_reference(std::vector<entry>& table, const std::vector<entry>& batch);

}  // namespace gpmx::apps::hashmap
