#include "hashmap/cuckoo.hpp"

#include <unordered_set>

namespace gpmx::apps::hashmap {

bool apply_reference(std::vector<entry>& table, const std::vector<entry>& batch) {
  const std::uint64_t slots = table.size();
  // Round 0 reads the table as it was before the batch; its only writes
  // replace values of keys already present, which changes no slot's
  // emptiness, so applying them in order gives the same pending list.
  std::vector<pending> now;
  for (const entry& in : batch) {
    std::uint64_t s = 0;
    bool found = false;
    const pending p = first_round(table, slots, in.key, in.value, s, found);
    if (found) table[s].value = in.value;
    else now.push_back(p);
  }
  for (std::uint32_t round = 1; !now.empty(); ++round) {
    if (round > max_rounds) return false;
    std::unordered_set<std::uint64_t> claimed;  // the first claim of a slot wins
    std::vector<pending> next;
    for (const pending& p : now) {
      const std::uint64_t s = slot_of(p.key, p.fn, slots);
      if (!claimed.insert(s).second) {
        next.push_back({p.key, p.value, (p.fn + 1) % hash_functions});
        continue;
      }
      const entry old = table[s];
      table[s] = entry{p.key, p.value};
      if (old.key != 0) next.push_back({old.key, old.value, next_fn_after(old.key, s, slots)});
    }
    now = std::move(next);
  }
  return true;
}

}  // namespace gpmx::apps::hashmap
