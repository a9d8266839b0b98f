// The warp-coalesced cursor and the uncached read (the graph ablation's
// "reuse" and "none"): lanes walking a page in step probe it once per warp,
// writes through the cursor reach the file after flush, and an uncached
// read is exactly one one-block READ per access with the file's data.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "gpmx/storage/cache_memory.hpp"
#include "gpmx/storage/uncached_read.hpp"
#include "gpmx/storage/array.hpp"
#include "storage/storage_rig.hpp"

namespace {
using namespace storage_test;

constexpr std::uint64_t words_per_line = 4096 / 8;

// Warp w walks pages [2w, 2w + 2) with its lanes 32 words apart.
struct warp_walk {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, bool write, std::uint64_t* sums, std::uint64_t* probes) const {
    warp_cursor<std::uint64_t> c(a);
    const std::uint64_t first = (t.global_id() / 32) * 2 * words_per_line;
    std::uint64_t sum = 0;
    for (std::uint64_t i = first + t.lane_id(); i < first + 2 * words_per_line; i += 32) {
      if (write) c.write(t, i, 3 * i);
      else sum += c.read(t, i);
    }
    c.done(t);
    sums[t.global_id()] = sum;
    probes[t.global_id()] = c.probes();
  }
};

TEST(BamWarpCursor, LanesWalkingAPageInStepProbeItOncePerWarp) {
  for (bool det : {false, true}) {
    cpu::executor ex(det ? deterministic(5) : parallel());
    storage_rig rig(ex, {.device_bytes = 32 * 4096, .deterministic = det, .seed = 5});
    page_cache cache({.line_bytes = 4096, .lines = 8});
    const auto a = cache.array<std::uint64_t>(cache.add_range(32, 0, rig.device_list(), rig.queues), 32 * words_per_line);
    const unsigned threads = 4 * 32;  // 4 warps, 8 pages
    std::vector<std::uint64_t> sums(threads), probes(threads);
    launch(ex, cache, {dim3(2), dim3(64), 0, "warp_walk"}, warp_walk{}, a, false, sums.data(), probes.data());
    std::uint64_t warp_probes = 0;
    for (unsigned g = 0; g < threads; ++g) {
      std::uint64_t expect = 0;
      const std::uint64_t first = (g / 32) * 2 * words_per_line;
      for (std::uint64_t i = first + g % 32; i < first + 2 * words_per_line; i += 32) expect += pattern(0, i);
      EXPECT_EQ(sums[g], expect) << g;
      warp_probes += probes[g];
    }
    EXPECT_EQ(warp_probes, 8u) << "one probe per warp and page";
    EXPECT_EQ(cache.counters().misses, 8u);
    EXPECT_EQ(cache.dirty_pages(), 0u);
    launch(ex, cache, {dim3(2), dim3(64), 0, "warp_write"}, warp_walk{}, a, true, sums.data(), probes.data());
    flush(ex, cache);
    const auto file = read_words(rig.devices[0]->path());
    for (std::uint64_t i = 0; i < 8 * words_per_line; ++i) ASSERT_EQ(file[i], 3 * i) << i;
    EXPECT_EQ(file[8 * words_per_line], pattern(0, 8 * words_per_line)) << "pages nobody wrote stay as they were";
  }
}

struct uncached_reads {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, std::byte* buffers, std::uint64_t* out) const {
    const std::uint64_t g = t.global_id();
    out[g] = read_uncached(t, a, (g * 977) % a.size(), buffers + g * 512);
  }
};

TEST(BamUncachedRead, OneBlockReadPerAccessOnEveryDeviceOfAStripe) {
  for (bool det : {false, true}) {
    cpu::executor ex(det ? deterministic(6) : parallel());
    storage_rig rig(ex, {.devices = 2, .device_bytes = 16 * 4096, .deterministic = det, .seed = 6});
    page_cache cache({.line_bytes = 4096, .lines = 2});
    const auto a = cache.array<std::uint64_t>(cache.add_range(32, 0, rig.device_list(), rig.queues), 32 * words_per_line);
    const unsigned threads = 256;
    std::unique_ptr<std::byte, void (*)(void*)> buffers(static_cast<std::byte*>(std::aligned_alloc(4096, threads * 512)),
                                                        std::free);
    std::vector<std::uint64_t> out(threads);
    ex.launch({dim3(4), dim3(64), 0, "uncached_reads"}, uncached_reads{}, a, buffers.get(), out.data());
    for (std::uint64_t g = 0; g < threads; ++g) {
      // Page p of the range is page p / 2 of device p mod 2.
      const std::uint64_t i = (g * 977) % a.size(), page = i / words_per_line;
      ASSERT_EQ(out[g], pattern(page % 2, (page / 2) * words_per_line + i % words_per_line)) << g;
    }
    const auto& c0 = rig.controllers[0]->counters();
    const auto& c1 = rig.controllers[1]->counters();
    EXPECT_EQ(c0.reads + c1.reads, threads);
    EXPECT_EQ(c0.bytes_read + c1.bytes_read, threads * 512u);
    EXPECT_GT(c0.reads, 0u);
    EXPECT_GT(c1.reads, 0u);
    EXPECT_EQ(cache.counters().misses, 0u) << "the cache is not used";
  }
}

}  // namespace
