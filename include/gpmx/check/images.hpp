#pragma once
// Image strategies: which pmo-closed sets of granule-stores to try at a crash
// point. Every image contains the crash point's must set and lies within its
// issued set.
#include <cstdint>
#include <string_view>
#include <vector>

#include "gpmx/check/crash_point.hpp"

namespace gpmx::check {

// pmreorder is the baseline that knows no scopes (pmreorder_images below).
// mixed (the default) is drop-one at every crash point, then pairs of lost
// stores, then random images that lose several (check_run.hpp runs the
// three passes; the generators are below).
enum class image_strategy : std::uint8_t { minimal, maximal, drop_one, random, exhaustive, pmreorder, mixed };

// "minimal", "maximal", "drop-one", "random", "exhaustive", "pmreorder", "mixed".
const char* to_string(image_strategy s);
image_strategy parse_strategy(std::string_view name);  // throws check_error (config) naming an unknown name

struct strategy_options {
  image_strategy strategy = image_strategy::mixed;
  std::size_t random_images = 16;  // random: how many distinct images to draw
  std::uint64_t seed = 1;          // random, and mixed's multi-loss images
  std::size_t cap = 4096;          // drop-one (mixed's first pass too) and exhaustive stop after this many images
  // mixed: images in all (over every crash point) for pairs of lost stores,
  // and for random images losing two or more stores.
  std::size_t pair_images = 2000;
  std::size_t multi_loss_images = 500;
};

struct image_set {
  std::vector<store_set> images;
  std::size_t count = 0;     // images.size()
  bool complete = false;     // the strategy finished (no cap cut it short)
  bool covers_all = false;   // the images are every pmo-closed image of the crash point
};

image_set minimal_image(const persist_order& order, const crash_state& at);
image_set maximal_image(const persist_order& order, const crash_state& at);
// For each may-store s: the issued set without s and without every store
// pmo-after s. With more than `cap` may-stores, `cap` of them evenly spread.
image_set drop_one_images(const persist_order& order, const crash_state& at, std::size_t cap);
// Distinct images, each must ∪ a random subset of may (each store kept with a
// probability drawn per image) closed under pmo; deterministic in the seed.
image_set random_images(const persist_order& order, const crash_state& at, std::size_t n, std::uint64_t seed);
// Up to n distinct images, each `kept` plus a random subset of `candidates`
// (each image draws its own keep-probability), closed under `closing` when
// given; deterministic in the seed. random_images and pmreorder_images draw
// through it.
image_set draw_distinct_images(const store_set& kept, const std::vector<std::size_t>& candidates, std::size_t n,
                               std::uint64_t seed, const persist_order* closing);
// Pairs of lost stores: for may-stores a and b, the issued set without a, b
// and every store pmo-after either. Pairs are taken closest first: pairs of
// one thread by their distance in its list of may-stores, then pairs of
// different threads by their distance in the crash point's list, at most
// `budget` images. A pair whose second store is pmo-after the first loses
// what the first's drop-one image loses: it is covered without an image.
struct pair_image_set {
  image_set images;
  std::uint64_t pairs_total = 0;    // |may| (|may| - 1) / 2
  std::uint64_t pairs_covered = 0;  // pairs given an image or covered by a drop-one image
};
pair_image_set pair_images(const persist_order& order, const crash_state& at, std::size_t budget);
// n distinct images, image j losing k = 2 + floor(log2(j + 1)) may-stores
// drawn at random (at most |may|) and every store pmo-after them: random
// losses of growing size; deterministic in the seed.
image_set multi_loss_images(const persist_order& order, const crash_state& at, std::size_t n, std::uint64_t seed);
// The issued set without `lost` and every store pmo-after one of them.
store_set issued_without(const persist_order& order, const crash_state& at, const std::vector<std::size_t>& lost);

// Every pmo-closed image, up to `cap` of them.
image_set exhaustive_images(const persist_order& order, const crash_state& at, std::size_t cap);

// The images of options.strategy; pmreorder needs the trace: see below.
image_set make_images(const persist_order& order, const crash_state& at, const strategy_options& options);

// A pmreorder-style baseline for comparison (PMDK's pmreorder, as its
// documentation describes it: stores between two fences persist in any
// subset, stores before the last fence are durable). It knows neither
// threads nor scopes, so every ordering operation of any thread is a fence:
// the stores issued before the last one before `position` are kept, and n
// random subsets of the stores after it (no closure under pmo) are drawn.
image_set pmreorder_images(const trace::trace& t, const persist_order& order, std::uint64_t position, std::size_t n,
                           std::uint64_t seed);

}  // namespace gpmx::check
