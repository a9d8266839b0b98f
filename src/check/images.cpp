// The image strategies.
#include "gpmx/check/images.hpp"

#include <random>
#include <set>
#include <string>

namespace gpmx::check {

const char* to_string(image_strategy s) {
  switch (s) {
    case image_strategy::minimal: return "minimal";
    case image_strategy::maximal: return "maximal";
    case image_strategy::drop_one: return "drop-one";
    case image_strategy::random: return "random";
    case image_strategy::exhaustive: return "exhaustive";
    case image_strategy::pmreorder: return "pmreorder";
    case image_strategy::mixed: return "mixed";
  }
  return "?";
}

image_strategy parse_strategy(std::string_view name) {
  for (image_strategy s : {image_strategy::minimal, image_strategy::maximal, image_strategy::drop_one,
                           image_strategy::random, image_strategy::exhaustive, image_strategy::pmreorder,
                           image_strategy::mixed})
    if (name == to_string(s)) return s;
  throw check_error("unknown image strategy '" + std::string(name) +
                    "' (expected mixed, minimal, maximal, drop-one, random, exhaustive or pmreorder)",
                    error_code::config);
}

namespace {
image_set single(store_set image, bool only_image) {
  image_set out;
  out.images.push_back(std::move(image));
  out.count = 1;
  out.complete = true;
  out.covers_all = only_image;
  return out;
}
}  // namespace

image_set minimal_image(const persist_order&, const crash_state& at) { return single(at.must, at.may.empty()); }

image_set maximal_image(const persist_order&, const crash_state& at) { return single(at.issued, at.may.empty()); }

image_set drop_one_images(const persist_order& order, const crash_state& at, std::size_t cap) {
  image_set out;
  out.complete = true;
  const std::vector<std::size_t> issued = at.issued.ids();
  std::vector<std::size_t> may = at.may.ids();
  if (may.size() > cap) {  // the cap's worth, spread evenly over the may-stores
    std::vector<std::size_t> some;
    for (std::size_t k = 0; k < cap; ++k) some.push_back(may[k * may.size() / cap]);
    may = std::move(some);
    out.complete = false;
  }
  for (std::size_t s : may) {
    store_set image = at.issued;
    image.erase(s);
    for (std::size_t t : issued)  // ids after s only: pmo edges go forward
      if (t > s && order.ordered(s, t)) image.erase(t);
    out.images.push_back(std::move(image));
  }
  out.count = out.images.size();
  out.covers_all = false;  // the maximal image is never among them
  return out;
}

image_set draw_distinct_images(const store_set& kept, const std::vector<std::size_t>& candidates, std::size_t n,
                               std::uint64_t seed, const persist_order* closing) {
  image_set out;
  std::mt19937_64 rng(seed);  // its sequence is fixed by the standard, unlike the distributions
  std::set<std::vector<std::uint64_t>> seen;
  // Duplicates are likely when there are few candidates; give up after a bounded number of draws.
  for (std::size_t draws = 0; out.images.size() < n && draws < 8 * n + 8; ++draws) {
    const std::uint64_t keep_below = rng();  // per image: the probability of keeping a store
    store_set image = kept;
    for (std::size_t s : candidates)
      if (rng() < keep_below) image.insert(s);
    if (closing) closing->close(image);
    if (seen.insert(image.words()).second) out.images.push_back(std::move(image));
  }
  out.count = out.images.size();
  out.complete = out.images.size() == n;
  return out;
}

image_set random_images(const persist_order& order, const crash_state& at, std::size_t n, std::uint64_t seed) {
  image_set out = draw_distinct_images(at.must, at.may.ids(), n, seed, &order);
  out.covers_all = at.may.empty() && !out.images.empty();
  return out;
}

namespace {
// Depth-first over the may-stores in id order (a topological order of pmo):
// each is left out, or put in when all its may-predecessors are in. Every
// leaf is a distinct closed image and no branch dead-ends.
class enumerator {
 public:
  enumerator(const persist_order& order, const crash_state& at, std::size_t cap)
      : at_(at), may_(at.may.ids()), in_(may_.size(), 0), cap_(cap) {
    may_preds_.resize(may_.size());
    for (std::size_t d = 0; d < may_.size(); ++d)
      for (std::size_t e = 0; e < d; ++e)
        if (order.ordered(may_[e], may_[d])) may_preds_[d].push_back(e);
  }

  image_set run() {
    visit(0);
    out_.count = out_.images.size();
    out_.complete = !cut_;
    out_.covers_all = !cut_;
    return std::move(out_);
  }

 private:
  void visit(std::size_t d) {
    if (cut_) return;
    if (d == may_.size()) {
      if (out_.images.size() == cap_) {
        cut_ = true;
        return;
      }
      store_set image = at_.must;
      for (std::size_t k = 0; k < d; ++k)
        if (in_[k]) image.insert(may_[k]);
      out_.images.push_back(std::move(image));
      return;
    }
    bool can_include = true;
    for (std::size_t e : may_preds_[d]) can_include = can_include && in_[e] != 0;
    if (can_include) {
      in_[d] = 1;
      visit(d + 1);
      in_[d] = 0;
    }
    visit(d + 1);
  }

  const crash_state& at_;
  std::vector<std::size_t> may_;
  std::vector<std::vector<std::size_t>> may_preds_;
  std::vector<char> in_;
  std::size_t cap_;
  bool cut_ = false;
  image_set out_;
};
}  // namespace

image_set exhaustive_images(const persist_order& order, const crash_state& at, std::size_t cap) {
  // The search recurses once per may-store; beyond this it would only ever
  // see images that differ in the last few stores anyway.
  constexpr std::size_t most_may_stores = 16384;
  if (at.may.count() > most_may_stores)
    throw check_error("exhaustive enumeration over " + std::to_string(at.may.count()) +
                      " may-stores at position " + std::to_string(at.position) + " is out of reach (at most " +
                      std::to_string(most_may_stores) + "); use drop-one or random");
  return enumerator(order, at, cap).run();
}

image_set make_images(const persist_order& order, const crash_state& at, const strategy_options& options) {
  switch (options.strategy) {
    case image_strategy::minimal: return minimal_image(order, at);
    case image_strategy::maximal: return maximal_image(order, at);
    case image_strategy::drop_one: return drop_one_images(order, at, options.cap);
    case image_strategy::mixed:  // one crash point alone: its first pass (check_run runs the others)
      return drop_one_images(order, at, options.cap);
    case image_strategy::random:  // a different stream per crash point
      return random_images(order, at, options.random_images, options.seed ^ (at.position * 0x9e3779b97f4a7c15ull));
    case image_strategy::exhaustive: return exhaustive_images(order, at, options.cap);
    case image_strategy::pmreorder:
      throw check_error("the pmreorder strategy needs the trace: call pmreorder_images");
  }
  throw check_error("unknown image strategy");
}

}  // namespace gpmx::check
