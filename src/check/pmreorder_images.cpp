// The pmreorder-style baseline: global fences, random subsets after the last.
#include <random>
#include <set>

#include "gpmx/check/images.hpp"

namespace gpmx::check {
namespace {

bool is_fence_like(trace::event_kind k) {
  using trace::event_kind;
  return k != event_kind::pm_write && k != event_kind::pm_read && k != event_kind::atomic &&
         k != event_kind::kernel_begin;
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
  const std::size_t kept = order.issued_before(fence), issued = order.issued_before(position);
  image_set out;
  std::mt19937_64 rng(seed ^ (position * 0x9e3779b97f4a7c15ull));
  std::set<std::vector<std::uint64_t>> seen;
  for (std::size_t draws = 0; out.images.size() < n && draws < 8 * n + 8; ++draws) {
    const std::uint64_t keep_below = rng();
    store_set image = order.empty_set();
    image.insert_prefix(kept);
    for (std::size_t id = kept; id < issued; ++id)
      if (rng() < keep_below) image.insert(id);
    if (seen.insert(image.words()).second) out.images.push_back(std::move(image));
  }
  out.count = out.images.size();
  out.complete = out.images.size() == n;
  out.covers_all = false;
  return out;
}

}  // namespace gpmx::check
