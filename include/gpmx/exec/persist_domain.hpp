#pragma once
// The executor's view of persistent memory: something that can make byte
// ranges durable (a PM pool implements it). PM views record each store a
// thread makes against its domain; persistency operations flush what the
// thread recorded. The executor knows nothing else about PM.
#include <cstddef>
#include <cstdint>

namespace gpmx {

class persist_domain {
 public:
  virtual ~persist_domain() = default;
  // Makes [p, p + bytes) durable; returns when it is.
  virtual void persist_range(const void* p, std::size_t bytes) const = 0;
  // Makes the given lines (sorted, distinct; each an address divided by
  // persist_line_bytes) durable. The default flushes each run of adjacent
  // lines; a domain whose flush unit is larger (msync: a page) merges more.
  virtual void persist_lines(const std::uintptr_t* lines, std::size_t n) const;
};

// The unit in which the cpu executor tracks and flushes a thread's PM stores.
inline constexpr std::size_t persist_line_bytes = 64;

// One cache line a thread has written and not yet persisted.
struct pm_line {
  const persist_domain* domain;
  std::uintptr_t line;  // address / persist_line_bytes
  bool operator==(const pm_line&) const = default;
};

}  // namespace gpmx
