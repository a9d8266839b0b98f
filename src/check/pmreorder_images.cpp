// The pmreorder-style baseline: global fences, random subsets after the last.
#include <algorithm>
#include <string>

#include "gpmx/check/images.hpp"

namespace gpmx::check {
namespace {

bool is_fence_like(trace::event_kind k) {
  using trace::event_kind;
  return k != event_kind::pm_write && k != event_kind::pm_read && k != event_kind::atomic &&
         k != event_kind::kernel_begin && k != event_kind::agent_step;
}

}  // namespace

image_set pmreorder_images(const trace::trace& t, const persist_order& order, std::uint64_t position, std::size_t n,
                           std::uint64_t seed) {
  if (t.events.size() != order.event_count())
    throw check_error("pmreorder: the trace has " + std::to_string(t.events.size()) +
                      " events but the persist order was built from " + std::to_string(order.event_count()));
  std::uint64_t fence = 0;  // stores before the last fence-like event before the crash are durable
  for (std::uint64_t i = std::min<std::uint64_t>(position, t.events.size()); i > 0; --i)
    if (is_fence_like(t.events[i - 1].kind)) {
      fence = i - 1;
      break;
    }
  store_set kept = order.empty_set();
  kept.insert_prefix(order.issued_before(fence));
  std::vector<std::size_t> after;
  for (std::size_t id = order.issued_before(fence); id < order.issued_before(position); ++id) after.push_back(id);
  image_set out = draw_distinct_images(kept, after, n, seed ^ (position * 0x9e3779b97f4a7c15ull), nullptr);
  out.covers_all = false;
  return out;
}

}  // namespace gpmx::check
