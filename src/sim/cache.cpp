#include "gpmx/sim/cache.hpp"

#include <fmt/format.h>

#include <bit>

#include "gpmx/support/error.hpp"

namespace gpmx::sim {

sectored_cache::sectored_cache(std::uint64_t size, std::uint32_t line, std::uint32_t sector, std::uint32_t ways)
    : line_(line), sector_(sector), ways_(ways), sets_(0), line_shift_(0) {
  if (!std::has_single_bit(line) || !std::has_single_bit(sector) || sector > line || line / sector > 32 ||
      ways == 0 || size == 0 || size % (std::uint64_t(line) * ways) != 0)
    throw gpmx::error(error_code::config,
                      fmt::format("cache of {} bytes, {}-byte lines, {}-byte sectors and {} ways cannot be built",
                                  size, line, sector, ways));
  sets_ = std::uint32_t(size / (std::uint64_t(line) * ways));
  line_shift_ = unsigned(std::countr_zero(line));
  const std::uint32_t n = sets_ * ways_;
  cache_line unused{};
  unused.line_addr = empty_key;
  lines_.assign(n, unused);
  links_.assign(n, links{});
  ends_.assign(sets_, ends{});
  for (std::uint32_t i = 0; i < n; ++i) push_back(i);
  if (hashed()) {
    std::size_t slots = std::bit_ceil(std::size_t(n) * 2);
    table_.assign(slots, table_slot{});
    table_mask_ = slots - 1;
  } else {
    tags_.assign(n, empty_key);
  }
}

void sectored_cache::table_insert(std::uint64_t line_addr, std::uint32_t index) {
  if (!hashed()) {
    tags_[index] = line_addr;
    return;
  }
  std::size_t h = slot_of(line_addr);
  while (table_[h].key != empty_key) h = (h + 1) & table_mask_;
  table_[h] = table_slot{line_addr, index};
}

void sectored_cache::table_erase(std::uint64_t line_addr, std::uint32_t index) {
  if (line_addr == memo_key_) memo_key_ = empty_key;
  if (!hashed()) {
    tags_[index] = empty_key;
    return;
  }
  std::size_t i = slot_of(line_addr);
  while (table_[i].key != line_addr) {
    if (table_[i].key == empty_key) return;
    i = (i + 1) & table_mask_;
  }
  // Backward-shift deletion: pull later entries of the probe run into the
  // hole when their home slot does not lie between the hole and them.
  std::size_t j = i;
  for (;;) {
    j = (j + 1) & table_mask_;
    if (table_[j].key == empty_key) break;
    std::size_t home = slot_of(table_[j].key);
    if (((j - home) & table_mask_) >= ((j - i) & table_mask_)) {
      table_[i] = table_[j];
      i = j;
    }
  }
  table_[i] = table_slot{};
}

void sectored_cache::unlink(std::uint32_t i) {
  ends& e = ends_[i / ways_];
  const links l = links_[i];
  if (l.prev != npos) links_[l.prev].next = l.next;
  else e.head = l.next;
  if (l.next != npos) links_[l.next].prev = l.prev;
  else e.tail = l.prev;
  links_[i] = links{};
}

void sectored_cache::push_front(std::uint32_t i) {
  ends& e = ends_[i / ways_];
  links_[i] = links{npos, e.head};
  if (e.head != npos) links_[e.head].prev = i;
  else e.tail = i;
  e.head = i;
}

void sectored_cache::push_back(std::uint32_t i) {
  ends& e = ends_[i / ways_];
  links_[i] = links{e.tail, npos};
  if (e.tail != npos) links_[e.tail].next = i;
  else e.head = i;
  e.tail = i;
}

void sectored_cache::drop(std::uint32_t i) {
  table_erase(lines_[i].line_addr, i);
  lines_[i] = cache_line{};
  lines_[i].line_addr = empty_key;
  // Invalid lines stay at the least recently used end, so allocation takes
  // them before evicting anything.
  unlink(i);
  push_back(i);
}

std::uint32_t sectored_cache::lookup(std::uint64_t line_addr, std::uint32_t mask) {
  std::uint32_t i = index_of(line_addr);
  if (i == npos) return 0;
  if (ends_[i / ways_].head != i) {
    unlink(i);
    push_front(i);
  }
  return lines_[i].valid & mask;
}

cache_line& sectored_cache::allocate(std::uint64_t line_addr, evicted_line& victim) {
  victim.valid = false;
  std::uint32_t i = index_of(line_addr);
  if (i != npos) {
    if (ends_[i / ways_].head != i) {
      unlink(i);
      push_front(i);
    }
    return lines_[i];
  }
  const std::uint32_t s = set_of(line_addr);
  i = ends_[s].tail;
  cache_line& l = lines_[i];
  if (used(i)) {
    if (l.valid) victim = evicted_line{true, l.line_addr, l.valid, l.dirty, l.tag};
    table_erase(l.line_addr, i);
  }
  l = cache_line{};
  l.line_addr = line_addr;
  table_insert(line_addr, i);
  memo_key_ = line_addr;
  memo_index_ = i;
  unlink(i);
  push_front(i);
  return l;
}

bool sectored_cache::invalidate(std::uint64_t line_addr) {
  std::uint32_t i = index_of(line_addr);
  if (i == npos) return false;
  drop(i);
  return true;
}

std::vector<evicted_line> sectored_cache::flush_dirty() {
  std::vector<evicted_line> out;
  flush_dirty([&](const evicted_line& e) { out.push_back(e); });
  return out;
}

std::size_t sectored_cache::lines_valid() const {
  std::size_t n = 0;
  for (const auto& l : lines_) n += l.valid != 0;
  return n;
}

}  // namespace gpmx::sim
