#pragma once
// The trace tests' lookup of a recorded PM store by the value it wrote.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gpmx/trace/event.hpp"

namespace gpmx::trace::testing {

// The first pm_write whose first (up to) 8 bytes are `value`, or end().
inline std::vector<event>::const_iterator find_store(const trace& t, std::uint64_t value) {
  return std::find_if(t.events.begin(), t.events.end(), [&](const event& e) {
    std::uint64_t v = 0;
    std::memcpy(&v, e.data.data(), std::min<std::size_t>(8, e.value_bytes));
    return e.kind == event_kind::pm_write && v == value;
  });
}

}  // namespace gpmx::trace::testing
