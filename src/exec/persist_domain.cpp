#include "gpmx/exec/persist_domain.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "gpmx/exec/errors.hpp"

namespace gpmx {
namespace {

struct registered {
  std::uintptr_t end;
  const persist_domain* domain;
};
struct domain_registry {
  std::shared_mutex mutex;
  std::map<std::uintptr_t, registered> by_base;
  std::vector<persist_domain_listener*> listeners;
};
domain_registry& domains() {
  static domain_registry r;
  return r;
}

}  // namespace

void register_persist_domain(const persist_domain* d, const void* base, std::size_t bytes) {
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  domain_registry& r = domains();
  std::unique_lock lock(r.mutex);
  auto next = r.by_base.lower_bound(b);
  const bool overlaps_next = next != r.by_base.end() && next->first < b + bytes;
  const bool overlaps_prev = next != r.by_base.begin() && std::prev(next)->second.end > b;
  if (overlaps_next || overlaps_prev)
    throw config_error(fmt::format("persist domain at {:#x} ({} bytes) overlaps one already registered", b, bytes));
  for (persist_domain_listener* l : r.listeners) l->added(d, base, bytes);
  r.by_base.emplace(b, registered{b + bytes, d});
}

void unregister_persist_domain(const persist_domain* d) {
  domain_registry& r = domains();
  std::unique_lock lock(r.mutex);
  std::erase_if(r.by_base, [&r, d](const auto& kv) {
    if (kv.second.domain != d) return false;
    for (persist_domain_listener* l : r.listeners)
      l->removed(d, reinterpret_cast<const void*>(kv.first), kv.second.end - kv.first);
    return true;
  });
}

void add_persist_domain_listener(persist_domain_listener* l) {
  domain_registry& r = domains();
  std::unique_lock lock(r.mutex);
  std::vector<std::pair<std::uintptr_t, registered>> told;
  try {
    for (const auto& [base, reg] : r.by_base) {
      l->added(reg.domain, reinterpret_cast<const void*>(base), reg.end - base);
      told.emplace_back(base, reg);
    }
  } catch (...) {
    for (const auto& [base, reg] : told) l->removed(reg.domain, reinterpret_cast<const void*>(base), reg.end - base);
    throw;
  }
  r.listeners.push_back(l);
}

void remove_persist_domain_listener(persist_domain_listener* l) {
  domain_registry& r = domains();
  std::unique_lock lock(r.mutex);
  std::erase(r.listeners, l);
}

void persist_all_domains() {
  domain_registry& r = domains();
  std::shared_lock lock(r.mutex);
  // Asked for nothing: a whole-pool flush is not what kernels persisted.
  for (const auto& [base, reg] : r.by_base)
    reg.domain->persist_merged(reinterpret_cast<const void*>(base), reg.end - base, 0);
}

const persist_domain* find_persist_domain(const void* p, std::size_t bytes) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  domain_registry& r = domains();
  std::shared_lock lock(r.mutex);
  auto it = r.by_base.upper_bound(a);
  if (it == r.by_base.begin()) return nullptr;
  --it;
  return a + bytes <= it->second.end ? it->second.domain : nullptr;
}

void merge_lines(const std::uintptr_t* lines, std::size_t n, std::size_t unit_bytes,
                 std::vector<persist_domain::merged_range>& out) {
  out.clear();
  const std::uintptr_t unit = std::max<std::uintptr_t>(1, unit_bytes / persist_line_bytes);
  std::size_t i = 0;
  while (i < n) {
    std::size_t j = i + 1;
    while (j < n && lines[j] / unit <= lines[j - 1] / unit + 1) ++j;
    out.push_back({reinterpret_cast<const void*>(lines[i] * persist_line_bytes),
                   (lines[j - 1] - lines[i] + 1) * persist_line_bytes, (j - i) * persist_line_bytes});
    i = j;
  }
}

void persist_domain::persist_lines(const std::uintptr_t* lines, std::size_t n) const {
  thread_local std::vector<merged_range> runs;
  merge_lines(lines, n, persist_line_bytes, runs);
  for (const merged_range& r : runs) persist_range(r.p, r.bytes);
}

}  // namespace gpmx
