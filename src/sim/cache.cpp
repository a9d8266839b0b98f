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
  lines_.assign(n, cache_line{});
  used_.assign(n, 0);
  prev_.assign(n, npos);
  next_.assign(n, npos);
  head_.assign(sets_, npos);
  tail_.assign(sets_, npos);
  for (std::uint32_t i = 0; i < n; ++i) push_back(i);
  std::size_t slots = std::bit_ceil(std::size_t(n) * 2);
  keys_.assign(slots, empty_key);
  vals_.assign(slots, npos);
  table_mask_ = slots - 1;
}

void sectored_cache::table_insert(std::uint64_t line_addr, std::uint32_t index) {
  std::size_t h = slot_of(line_addr);
  while (keys_[h] != empty_key) h = (h + 1) & table_mask_;
  keys_[h] = line_addr;
  vals_[h] = index;
}

void sectored_cache::table_erase(std::uint64_t line_addr) {
  std::size_t i = slot_of(line_addr);
  while (keys_[i] != line_addr) {
    if (keys_[i] == empty_key) return;
    i = (i + 1) & table_mask_;
  }
  // Backward-shift deletion: pull later entries of the probe run into the
  // hole when their home slot does not lie between the hole and them.
  std::size_t j = i;
  for (;;) {
    j = (j + 1) & table_mask_;
    if (keys_[j] == empty_key) break;
    std::size_t home = slot_of(keys_[j]);
    if (((j - home) & table_mask_) >= ((j - i) & table_mask_)) {
      keys_[i] = keys_[j];
      vals_[i] = vals_[j];
      i = j;
    }
  }
  keys_[i] = empty_key;
  vals_[i] = npos;
}

void sectored_cache::unlink(std::uint32_t i) {
  std::uint32_t s = i / ways_;
  if (prev_[i] != npos) next_[prev_[i]] = next_[i];
  else head_[s] = next_[i];
  if (next_[i] != npos) prev_[next_[i]] = prev_[i];
  else tail_[s] = prev_[i];
  prev_[i] = next_[i] = npos;
}

void sectored_cache::push_front(std::uint32_t i) {
  std::uint32_t s = i / ways_;
  prev_[i] = npos;
  next_[i] = head_[s];
  if (head_[s] != npos) prev_[head_[s]] = i;
  else tail_[s] = i;
  head_[s] = i;
}

void sectored_cache::push_back(std::uint32_t i) {
  std::uint32_t s = i / ways_;
  next_[i] = npos;
  prev_[i] = tail_[s];
  if (tail_[s] != npos) next_[tail_[s]] = i;
  else head_[s] = i;
  tail_[s] = i;
}

void sectored_cache::drop(std::uint32_t i) {
  table_erase(lines_[i].line_addr);
  lines_[i] = cache_line{};
  used_[i] = 0;
  // Invalid lines stay at the least recently used end, so allocation takes
  // them before evicting anything.
  unlink(i);
  push_back(i);
}

std::uint32_t sectored_cache::lookup(std::uint64_t line_addr, std::uint32_t mask) {
  std::uint32_t i = index_of(line_addr);
  if (i == npos) return 0;
  if (head_[i / ways_] != i) {
    unlink(i);
    push_front(i);
  }
  return lines_[i].valid & mask;
}

cache_line& sectored_cache::allocate(std::uint64_t line_addr, evicted_line& victim) {
  victim.valid = false;
  std::uint32_t i = index_of(line_addr);
  if (i != npos) {
    if (head_[i / ways_] != i) {
      unlink(i);
      push_front(i);
    }
    return lines_[i];
  }
  const std::uint32_t s = set_of(line_addr);
  i = tail_[s];
  cache_line& l = lines_[i];
  if (used_[i]) {
    if (l.valid) victim = evicted_line{true, l.line_addr, l.valid, l.dirty, l.tag};
    table_erase(l.line_addr);
  }
  used_[i] = 1;
  l = cache_line{};
  l.line_addr = line_addr;
  table_insert(line_addr, i);
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
