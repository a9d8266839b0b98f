// Images that lose more than one store: the pairs pass and the random
// multi-loss pass of the mixed strategy. A bug that only shows when two
// stores are lost together (a record and its mirror, data and its
// checksum's copy) is invisible to drop-one, whose images lose one store
// and what is pmo-after it.
#include <algorithm>
#include <bit>
#include <map>
#include <random>
#include <set>

#include "gpmx/check/images.hpp"

namespace gpmx::check {

store_set issued_without(const persist_order& order, const crash_state& at, const std::vector<std::size_t>& lost) {
  store_set image = at.issued;
  if (lost.empty()) return image;
  for (std::size_t l : lost) image.erase(l);
  const std::size_t first = *std::min_element(lost.begin(), lost.end());
  const std::size_t end = order.issued_before(at.position);
  for (std::size_t t = first + 1; t < end; ++t) {  // ids after the first lost only: pmo edges go forward
    if (!image.contains(t)) continue;
    for (std::size_t l : lost)
      if (l < t && order.ordered(l, t)) {
        image.erase(t);
        break;
      }
  }
  return image;
}

namespace {

// Visits pairs of may-stores closest first (see images.hpp) until `visit`
// returns false.
template <class F>
void closest_pairs(const persist_order& order, const std::vector<std::size_t>& may, F&& visit) {
  std::map<std::uint32_t, std::vector<std::size_t>> by_thread;
  std::size_t longest = 0;
  for (std::size_t id : may) {
    auto& list = by_thread[order.node(id).thread];
    list.push_back(id);
    longest = std::max(longest, list.size());
  }
  for (std::size_t d = 1; d < longest; ++d)
    for (const auto& [thread, list] : by_thread)
      for (std::size_t i = 0; i + d < list.size(); ++i)
        if (!visit(list[i], list[i + d])) return;
  for (std::size_t d = 1; d < may.size(); ++d)
    for (std::size_t i = 0; i + d < may.size(); ++i)
      if (order.node(may[i]).thread != order.node(may[i + d]).thread && !visit(may[i], may[i + d])) return;
}

}  // namespace

pair_image_set pair_images(const persist_order& order, const crash_state& at, std::size_t budget) {
  pair_image_set out;
  const std::vector<std::size_t> may = at.may.ids();
  out.pairs_total = std::uint64_t(may.size()) * (may.size() - (may.empty() ? 0 : 1)) / 2;
  closest_pairs(order, may, [&](std::size_t a, std::size_t b) {
    if (order.ordered(a, b)) {  // losing a loses b: a's drop-one image
      ++out.pairs_covered;
      return true;
    }
    if (out.images.images.size() == budget) return false;
    out.images.images.push_back(issued_without(order, at, {a, b}));
    ++out.pairs_covered;
    return true;
  });
  out.images.count = out.images.images.size();
  out.images.complete = out.pairs_covered == out.pairs_total;
  out.images.covers_all = false;
  return out;
}

image_set multi_loss_images(const persist_order& order, const crash_state& at, std::size_t n, std::uint64_t seed) {
  image_set out;
  const std::vector<std::size_t> may = at.may.ids();
  if (may.size() < 2) {  // nothing to lose two of
    out.complete = true;
    return out;
  }
  std::mt19937_64 rng(seed);
  std::set<std::vector<std::uint64_t>> seen;
  std::vector<std::size_t> pool = may;
  for (std::size_t draws = 0; out.images.size() < n && draws < 8 * n + 8; ++draws) {
    const std::size_t j = out.images.size();
    const std::size_t k = std::min<std::size_t>(may.size(), 2 + std::size_t(std::bit_width(j + 1)) - 1);
    for (std::size_t i = 0; i < k; ++i)  // a partial Fisher-Yates shuffle: the first k are the lost ones
      std::swap(pool[i], pool[i + std::size_t(rng() % (pool.size() - i))]);
    store_set image = issued_without(order, at, std::vector<std::size_t>(pool.begin(), pool.begin() + std::ptrdiff_t(k)));
    if (seen.insert(image.words()).second) out.images.push_back(std::move(image));
  }
  out.count = out.images.size();
  out.complete = out.images.size() == n;
  return out;
}

}  // namespace gpmx::check
