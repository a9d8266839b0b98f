#pragma once
// A sectored, set-associative cache with LRU replacement, the tag store of
// the L1s and L2 partitions (no data: the timing model needs only which
// sectors are present and dirty). A line's sectors are valid or dirty
// independently; a fill or store of some sectors allocates the line if it is
// absent, evicting the set's least recently used line, which is handed back
// so the caller can write its dirty sectors back.
//
// Lookups of a cache with many ways do not scan them: an open-addressed
// hash table maps a line to its way, so a 512-way fully associative L1
// costs what a 4-way cache does. With at most 32 ways a lookup scans the
// set's tags, kept side by side (the 16 of an L2 set take two host cache
// lines, where a hash probe and its deletion touched lines all over the
// table). Each set keeps an intrusive LRU list.
//
// The set of a line is the upper half of a 64-bit mix of its line number,
// modulo the number of sets (the L2's partition is chosen from the lower
// half, see memory_system.hpp), so strided streams spread over the sets.
#include <cstdint>
#include <vector>

#include "gpmx/sim/time.hpp"

namespace gpmx::sim {

// A 64-bit finalizer (from the family of splitmix/murmur mixers): every input
// bit affects every output bit. Used to choose sets and partitions.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

struct cache_line {
  std::uint64_t line_addr = 0;
  std::uint32_t valid = 0;  // sector mask
  std::uint32_t dirty = 0;  // sector mask, a subset of valid
  std::uint8_t tag = 0;     // the caller's: the memory space of the line
  picos ready = 0;          // the caller's: when the line's data arrives
};

// A line that left the cache; valid is false when none did.
struct evicted_line {
  bool valid = false;
  std::uint64_t line_addr = 0;
  std::uint32_t valid_mask = 0;
  std::uint32_t dirty_mask = 0;
  std::uint8_t tag = 0;
};

class sectored_cache {
 public:
  // size, line, sector in bytes; line and sector powers of two, at most 32
  // sectors per line, size a multiple of line * ways. Throws gpmx::error
  // (error_code::config) otherwise.
  sectored_cache(std::uint64_t size, std::uint32_t line, std::uint32_t sector, std::uint32_t ways);

  // The line, or null; the LRU order is left alone.
  cache_line* find(std::uint64_t line_addr) {
    std::uint32_t i = index_of(line_addr);
    return i == npos ? nullptr : &lines_[i];
  }
  const cache_line* find(std::uint64_t line_addr) const {
    std::uint32_t i = index_of(line_addr);
    return i == npos ? nullptr : &lines_[i];
  }

  // The sectors of `mask` present; a present line becomes most recently used.
  std::uint32_t lookup(std::uint64_t line_addr, std::uint32_t mask);

  // The line, allocated if absent (its sectors then all invalid), made most
  // recently used. A line evicted to make room is written to `victim`.
  cache_line& allocate(std::uint64_t line_addr, evicted_line& victim);

  // Marks `mask` valid (fill) or valid and dirty (store), allocating.
  cache_line& fill(std::uint64_t line_addr, std::uint32_t mask, std::uint8_t tag, evicted_line& victim) {
    cache_line& l = allocate(line_addr, victim);
    l.valid |= mask;
    l.tag = tag;
    return l;
  }
  cache_line& store(std::uint64_t line_addr, std::uint32_t mask, std::uint8_t tag, evicted_line& victim) {
    cache_line& l = fill(line_addr, mask, tag, victim);
    l.dirty |= mask;
    return l;
  }

  // Every line with dirty sectors, in no particular but a deterministic
  // order, each then clean (still valid). The kernel-end flush.
  std::vector<evicted_line> flush_dirty();
  template <class F>
  void flush_dirty(F&& each) {
    flush_dirty_if([](const cache_line&) { return true; }, each);
  }
  // The same for the dirty lines pred(const cache_line&) accepts.
  template <class Pred, class F>
  void flush_dirty_if(Pred&& pred, F&& each) {
    for (auto& l : lines_)
      if (l.valid && l.dirty && pred(static_cast<const cache_line&>(l))) {
        evicted_line e{true, l.line_addr, l.valid, l.dirty, l.tag};
        l.dirty = 0;
        each(e);
      }
  }

  // Drops every line for which pred(const cache_line&) is true, dirty or
  // not (flush first to keep the data); returns how many. Epoch persistency
  // invalidates the L1 this way.
  template <class Pred>
  std::size_t invalidate_if(Pred&& pred) {
    std::size_t n = 0;
    for (std::uint32_t i = 0; i < lines_.size(); ++i)
      if (used(i) && pred(static_cast<const cache_line&>(lines_[i]))) {
        drop(i);
        ++n;
      }
    return n;
  }
  std::size_t invalidate_all() {
    return invalidate_if([](const cache_line&) { return true; });
  }
  // Drops one line if present; returns whether it was.
  bool invalidate(std::uint64_t line_addr);

  std::uint32_t line_bytes() const { return line_; }
  std::uint32_t sector_bytes() const { return sector_; }
  std::uint32_t sets() const { return sets_; }
  std::uint32_t ways() const { return ways_; }
  std::uint32_t set_of(std::uint64_t line_addr) const {
    return std::uint32_t((mix64(line_addr >> line_shift_) >> 32) % sets_);
  }
  std::size_t lines_valid() const;

 private:
  static constexpr std::uint32_t npos = 0xffffffffu;
  static constexpr std::uint64_t empty_key = ~std::uint64_t(0);
  static constexpr std::uint32_t max_scanned_ways = 32;

  std::uint32_t index_of(std::uint64_t line_addr) const {
    // A request looks its line up several times in a row (find, lookup,
    // fill): the last answer is kept.
    if (line_addr == memo_key_) return memo_index_;
    const std::uint32_t i = hashed() ? table_find(line_addr) : set_find(line_addr);
    if (i != npos) memo_key_ = line_addr, memo_index_ = i;
    return i;
  }
  // Few ways (the L2's 16): the set's tags, side by side, are scanned.
  // Many (the L1's 512): a hash table finds the way.
  bool hashed() const { return ways_ > max_scanned_ways; }
  std::uint32_t set_find(std::uint64_t line_addr) const {
    const std::uint32_t base = set_of(line_addr) * ways_;
    for (std::uint32_t w = 0; w < ways_; ++w)
      if (tags_[base + w] == line_addr) return base + w;
    return npos;
  }
  std::uint32_t table_find(std::uint64_t line_addr) const {
    std::size_t h = slot_of(line_addr);
    while (table_[h].key != empty_key) {
      if (table_[h].key == line_addr) return table_[h].index;
      h = (h + 1) & table_mask_;
    }
    return npos;
  }
  std::size_t slot_of(std::uint64_t line_addr) const { return std::size_t(mix64(line_addr >> line_shift_)) & table_mask_; }
  // The way `index` holds line_addr now / no longer.
  void table_insert(std::uint64_t line_addr, std::uint32_t index);
  void table_erase(std::uint64_t line_addr, std::uint32_t index);
  void unlink(std::uint32_t i);
  void push_front(std::uint32_t i);  // most recently used
  void push_back(std::uint32_t i);   // least recently used
  void drop(std::uint32_t i);
  bool used(std::uint32_t i) const { return lines_[i].line_addr != empty_key; }

  // What one lookup touches sits together: a table slot holds the key with
  // its index, a line's two LRU links share a word, a set's ends another
  // (the model's tables are cold by the time a warp's next request comes).
  struct table_slot {
    std::uint64_t key = empty_key;  // line address ...
    std::uint32_t index = npos;     // ... to index in lines_
  };
  struct links {
    std::uint32_t prev = npos, next = npos;
  };
  struct ends {
    std::uint32_t head = npos, tail = npos;  // most and least recently used
  };

  std::uint32_t line_, sector_, ways_, sets_;
  unsigned line_shift_;
  std::vector<cache_line> lines_;  // set s holds ways [s * ways, (s + 1) * ways); line_addr empty_key: unused
  std::vector<links> links_;       // LRU links within a set
  std::vector<ends> ends_;         // per set
  std::vector<std::uint64_t> tags_;  // few ways: each way's line address (empty_key: unused)
  std::vector<table_slot> table_;    // many ways: open addressing, linear probing
  std::size_t table_mask_ = 0;
  mutable std::uint64_t memo_key_ = empty_key;
  mutable std::uint32_t memo_index_ = npos;
};

}  // namespace gpmx::sim
