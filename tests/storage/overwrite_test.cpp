// Whole-page writes that skip the read (array_view::overwrite_page): the
// file holds exactly the written elements after flush, with zeros past the
// array's end; an absent page costs no READ; a cached page is written in
// place; groups smaller than a warp each write their page whole; and a
// reader of a page being filled never sees the slot's earlier page.
#include <gtest/gtest.h>

#include <vector>

#include "gpmx/sim/config.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/storage/array.hpp"
#include "gpmx/storage/cache_memory.hpp"
#include "storage/storage_rig.hpp"

namespace {
using namespace storage_test;

constexpr std::uint64_t words_per_line = 4096 / 8;
constexpr std::uint64_t blocks_per_line = 4096 / 512;

std::uint64_t written(std::uint64_t i) { return 7 * i + 1; }

// Warp w overwrites pages [pages_per_warp * w, + pages_per_warp); lanes
// split into groups of `group_lanes`, each group its own page when smaller
// than a warp.
struct overwrite_pages {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, std::uint64_t pages_per_warp, std::uint32_t group_lanes) const {
    const std::uint64_t warp = t.global_id() / 32, groups = 32 / group_lanes;
    for (std::uint64_t k = 0; k < pages_per_warp; k += groups) {
      const std::uint64_t page = warp * pages_per_warp + k + t.lane_id() / group_lanes;
      a.overwrite_page(t, page, [](std::uint64_t i) { return written(i); });
    }
  }
};

struct read_pages {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, std::uint64_t pages) const {
    for (std::uint64_t i = t.global_id(); i < pages * words_per_line; i += t.global_count()) (void)a.read(t, i);
  }
};

TEST(BamOverwrite, AbsentPagesAreWrittenWholeWithoutARead) {
  for (bool det : {false, true}) {
    cpu::executor ex(det ? deterministic(3) : parallel());
    storage_rig rig(ex, {.device_bytes = 16 * 4096, .deterministic = det, .seed = 3});
    page_cache cache({.line_bytes = 4096, .lines = 16});
    // 7.5 pages of elements over 8 pages: the last page's second half lies past the end.
    const std::uint64_t count = 7 * words_per_line + words_per_line / 2;
    const auto a = cache.array<std::uint64_t>(cache.add_range(8, 0, rig.device_list(), rig.queues), count);
    launch(ex, cache, {dim3(2), dim3(64), 0, "overwrite_pages"}, overwrite_pages{}, a, std::uint64_t(2), 32u);
    EXPECT_EQ(cache.counters().overwrites, 8u);
    EXPECT_EQ(cache.counters().misses, 0u);
    EXPECT_EQ(cache.counters().reads, 0u) << "no page was read";
    EXPECT_EQ(cache.dirty_pages(), 8u);
    flush(ex, cache);
    EXPECT_EQ(cache.counters().writes, 8u);
    const auto file = read_words(rig.devices[0]->path());
    for (std::uint64_t i = 0; i < count; ++i) ASSERT_EQ(file[i], written(i)) << i;
    for (std::uint64_t i = count; i < 8 * words_per_line; ++i) ASSERT_EQ(file[i], 0u) << "past the array's end: " << i;
    EXPECT_EQ(file[8 * words_per_line], pattern(0, 8 * words_per_line)) << "the page after the range is untouched";
  }
}

TEST(BamOverwrite, CachedPagesAreWrittenInPlaceAndEvictedPagesWrittenBack) {
  for (bool det : {false, true}) {
    cpu::executor ex(det ? deterministic(4) : parallel());
    storage_rig rig(ex, {.device_bytes = 16 * 4096, .deterministic = det, .seed = 4});
    page_cache cache({.line_bytes = 4096, .lines = 4});
    const auto a = cache.array<std::uint64_t>(cache.add_range(16, 0, rig.device_list(), rig.queues), 16 * words_per_line);
    // Pages 0-3 cached by reads; then all 16 overwritten through 4 lines.
    launch(ex, cache, {dim3(1), dim3(64), 0, "read_pages"}, read_pages{}, a, std::uint64_t(4));
    const cache_counters before = cache.counters();
    EXPECT_EQ(before.misses, 4u);
    launch(ex, cache, {dim3(1), dim3(32), 0, "overwrite_pages"}, overwrite_pages{}, a, std::uint64_t(16), 32u);
    const cache_counters after = cache.counters();
    EXPECT_EQ(after.hits - before.hits, 4u) << "the cached pages";
    EXPECT_EQ(after.overwrites, 12u) << "the others, with no read";
    EXPECT_EQ(after.reads, before.reads);
    EXPECT_GE(after.write_backs, 12u) << "overwritten pages evicted to make room are written back";
    flush(ex, cache);
    const auto file = read_words(rig.devices[0]->path());
    for (std::uint64_t i = 0; i < 16 * words_per_line; ++i) ASSERT_EQ(file[i], written(i)) << i;
  }
}

TEST(BamOverwrite, GroupsSmallerThanAWarpEachWriteTheirPageWhole) {
  for (std::uint32_t group : {16u, 8u, 1u}) {
    cpu::executor ex(deterministic(group));
    storage_rig rig(ex, {.device_bytes = 64 * 4096, .deterministic = true, .seed = group});
    page_cache cache({.line_bytes = 4096, .lines = 64});
    const std::uint64_t pages = 32 / group * 2;  // two rounds of the warp's groups
    const auto a = cache.array<std::uint64_t>(cache.add_range(pages, 0, rig.device_list(), rig.queues),
                                              pages * words_per_line);
    launch(ex, cache, {dim3(1), dim3(32), 0, "overwrite_pages"}, overwrite_pages{}, a, pages, group);
    EXPECT_EQ(cache.counters().overwrites, pages) << group;
    flush(ex, cache);
    const auto file = read_words(rig.devices[0]->path());
    for (std::uint64_t i = 0; i < pages * words_per_line; ++i) ASSERT_EQ(file[i], written(i)) << group << " " << i;
  }
}

// Warp 0 overwrites page 0 of `target` while warp 1 reads it; every value
// warp 1 sees is the file's or the writer's, never the slot's earlier page
// (the lines were first filled with pages of `other`).
struct write_while_reading {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> target, array_view<std::uint64_t> other, std::uint64_t* seen) const {
    for (std::uint64_t i = t.lane_id(); i < 2 * words_per_line; i += 32) (void)other.read(t, i);
    t.syncthreads();
    if (t.global_id() < 32) {
      target.overwrite_page(t, 0, [](std::uint64_t i) { return written(i); });
    } else {
      for (std::uint64_t i = t.lane_id(); i < words_per_line; i += 32) seen[i] = target.read(t, i);
    }
  }
};

TEST(BamOverwrite, AReaderNeverSeesTheSlotsEarlierPage) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    cpu::executor ex(deterministic(seed));
    storage_rig rig(ex, {.device_bytes = 16 * 4096, .deterministic = true, .seed = seed});
    page_cache cache({.line_bytes = 4096, .lines = 2});
    const auto other = cache.array<std::uint64_t>(cache.add_range(2, 0, rig.device_list(), rig.queues), 2 * words_per_line);
    const std::uint32_t r = cache.add_range(1, 8 * blocks_per_line, rig.device_list(), rig.queues);
    const auto target = cache.array<std::uint64_t>(r, words_per_line);
    std::vector<std::uint64_t> seen(words_per_line);
    launch(ex, cache, {dim3(1), dim3(64), 0, "write_while_reading"}, write_while_reading{}, target, other, seen.data());
    for (std::uint64_t i = 0; i < words_per_line; ++i) {
      const std::uint64_t before = pattern(0, 8 * words_per_line + i);
      ASSERT_TRUE(seen[i] == before || seen[i] == written(i))
          << "seed " << seed << ": element " << i << " read " << seen[i] << ", neither the file's " << before
          << " nor the writer's " << written(i);
    }
  }
}

TEST(BamOverwrite, WorksOnAReplicatedRange) {
  cpu::executor ex(parallel());
  storage_rig rig(ex, {.devices = 2, .device_bytes = 8 * 4096, .replicas = true});
  page_cache cache({.line_bytes = 4096, .lines = 8});
  const auto a = cache.array<std::uint64_t>(
      cache.add_range(4, 0, rig.device_list(), rig.queues, distribution::replicate), 4 * words_per_line);
  launch(ex, cache, {dim3(1), dim3(64), 0, "overwrite_pages"}, overwrite_pages{}, a, std::uint64_t(2), 32u);
  flush(ex, cache);
  EXPECT_EQ(cache.counters().reads, 0u);
  for (const auto& d : rig.devices) {
    const auto file = read_words(d->path());
    for (std::uint64_t i = 0; i < 4 * words_per_line; ++i) ASSERT_EQ(file[i], written(i)) << d->path() << " " << i;
  }
}

// The same pages written through a warp cursor (each line read first).
struct cursor_pages {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, std::uint64_t pages) const {
    warp_cursor<std::uint64_t> c(a);
    for (std::uint64_t i = t.lane_id(); i < pages * words_per_line; i += 32) c.write(t, i, written(i));
    c.done(t);
  }
};

// In the timed mode one warp's fill issues as warp-wide stores: no more
// warp instructions than writing the same pages through a cursor.
TEST(BamOverwrite, AWarpFillsALineWithWarpWideStoresInTheTimedMode) {
  std::uint64_t instructions[2] = {0, 0};
  for (int way = 0; way < 2; ++way) {
    sim::gpu_model gpu(sim::named_config("sbrp-table1"));
    cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
    storage_rig rig(ex, {.device_bytes = 16 * 4096});
    page_cache cache({.line_bytes = 4096, .lines = 16});
    const auto a = cache.array<std::uint64_t>(cache.add_range(4, 0, rig.device_list(), rig.queues), 4 * words_per_line);
    if (way == 0) launch(ex, cache, {dim3(1), dim3(32), 0, "cursor_pages"}, cursor_pages{}, a, std::uint64_t(4));
    else launch(ex, cache, {dim3(1), dim3(32), 0, "overwrite_pages"}, overwrite_pages{}, a, std::uint64_t(4), 32u);
    instructions[way] = gpu.totals().instructions();
  }
  EXPECT_LE(instructions[1], instructions[0]) << "cursor " << instructions[0] << ", overwrite " << instructions[1];
}

}  // namespace
