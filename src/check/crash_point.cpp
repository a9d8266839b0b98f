// Crash positions, and the must/may sets at each (swept in position order so
// the closure of the durable stores is built once for all positions).
#include "gpmx/check/crash_point.hpp"

#include <algorithm>
#include <numeric>
#include <string>

namespace gpmx::check {

namespace {
bool is_ordering(trace::event_kind k) {
  using trace::event_kind;
  switch (k) {
    case event_kind::gpm_persist:
    case event_kind::ofence:
    case event_kind::dfence:
    case event_kind::prel:
    case event_kind::pacq:
    case event_kind::barrier:
    case event_kind::warp_collective:
    case event_kind::kernel_end:
    case event_kind::host_persist:
    case event_kind::persist_range: return true;
    default: return false;
  }
}
}  // namespace

std::vector<std::uint64_t> ordering_crash_points(const trace::trace& t) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t i = 0; i < t.events.size(); ++i)
    if (is_ordering(t.events[i].kind)) out.push_back(i);
  out.push_back(t.events.size());
  return out;
}

std::vector<std::uint64_t> every_n_crash_points(const trace::trace& t, std::uint64_t n) {
  if (n == 0) throw check_error("a crash every 0 events: the interval must be at least 1");
  std::vector<std::uint64_t> out;
  for (std::uint64_t p = n; p < t.events.size(); p += n) out.push_back(p);
  out.push_back(t.events.size());
  return out;
}

std::vector<crash_state> crash_states(const persist_order& order, const std::vector<std::uint64_t>& positions) {
  std::vector<std::size_t> by_position(positions.size());
  std::iota(by_position.begin(), by_position.end(), std::size_t(0));
  std::sort(by_position.begin(), by_position.end(), [&](std::size_t a, std::size_t b) { return positions[a] < positions[b]; });
  std::vector<std::size_t> by_durability(order.size());
  std::iota(by_durability.begin(), by_durability.end(), std::size_t(0));
  std::sort(by_durability.begin(), by_durability.end(),
            [&](std::size_t a, std::size_t b) { return order.durable_at(a) < order.durable_at(b); });

  std::vector<crash_state> out(positions.size());
  store_set must = order.empty_set();
  std::size_t next = 0;
  for (std::size_t k : by_position) {
    const std::uint64_t p = positions[k];
    const std::size_t issued_count = order.issued_before(p);  // validates p
    // A durability point at index d completed before position p when d < p.
    for (; next < by_durability.size() && order.durable_at(by_durability[next]) < p; ++next) {
      must |= order.predecessors(by_durability[next]);
      must.insert(by_durability[next]);
    }
    crash_state& s = out[k];
    s.position = p;
    s.issued = order.empty_set();
    s.issued.insert_prefix(issued_count);
    s.must = must;
    s.may = s.issued;
    s.may.subtract(must);
  }
  return out;
}

crash_state crash_state_at(const persist_order& order, std::uint64_t position) {
  return std::move(crash_states(order, {position}).front());
}

}  // namespace gpmx::check
