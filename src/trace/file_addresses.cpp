#include "file_addresses.hpp"

#include "gpmx/trace/trace_file.hpp"

namespace gpmx::trace {
namespace {

// The pool mapped during event #index whose bytes hold `address`, or -1.
std::ptrdiff_t pool_holding(const trace& t, std::uint64_t index, std::uint64_t address) {
  for (std::size_t i = 0; i < t.pools.size(); ++i) {
    const pool_image& p = t.pools[i];
    const bool mapped = index >= p.first_event && (p.end_event == no_event || index < p.end_event);
    if (mapped && address >= p.base && address - p.base < p.length) return std::ptrdiff_t(i);
  }
  return -1;
}

}  // namespace

file_addresses::file_addresses(const trace& t) : t_(t) {
  for (std::uint64_t i = 0; i < t.events.size(); ++i) {
    const std::uint64_t a = t.events[i].address;
    if (a != 0 && pool_holding(t, i, a) < 0) others_.emplace(a, other_base + 64 * others_.size());
  }
}

std::uint64_t file_addresses::of_event(std::uint64_t index) const {
  const std::uint64_t a = t_.events[index].address;
  if (a == 0) return 0;
  const std::ptrdiff_t p = pool_holding(t_, index, a);
  if (p >= 0) return pool_base(std::size_t(p)) + (a - t_.pools[std::size_t(p)].base);
  return others_.at(a);
}

trace with_file_addresses(const trace& t) {
  const file_addresses addresses(t);
  trace out = t;
  for (std::uint64_t i = 0; i < t.events.size(); ++i) out.events[i].address = addresses.of_event(i);
  for (std::size_t i = 0; i < t.pools.size(); ++i) out.pools[i].base = addresses.pool_base(i);
  return out;
}

}  // namespace gpmx::trace
