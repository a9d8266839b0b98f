// bam::array over the page cache: data read equals the backing files, a
// cold line wanted by many threads is read once, writes reach the files
// after flush() also when the data is many times the cache, contended
// atomic adds are exact, and ranges striped or replicated over two devices.
// Under the parallel schedule and the deterministic one with several seeds.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpmx/storage/cache_memory.hpp"
#include "storage/storage_rig.hpp"

namespace {
using namespace storage_test;

constexpr std::uint64_t words_per_line = 4096 / 8;

// A scattered but fixed walk over the array: thread g's k-th element.
GPMX_HD inline std::uint64_t walk(std::uint64_t g, std::uint64_t k, std::uint64_t n) {
  return (g * 7919 + k * 104729) % n;
}

struct read_walk {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, unsigned steps, bool alone, std::uint64_t* out) const {
    const std::uint64_t g = t.global_id();
    for (unsigned k = 0; k < steps; ++k) {
      const std::uint64_t i = walk(g, k, a.size());
      out[g * steps + k] = alone ? a.read_alone(t, i) : a.read(t, i);
    }
  }
};

struct schedule_case {
  cpu::executor_options exec;
  bool deterministic;
  std::uint64_t seed;
};
std::vector<schedule_case> schedules() {
  return {{parallel(), false, 1}, {deterministic(1), true, 1}, {deterministic(2), true, 2}, {deterministic(3), true, 3}};
}

TEST(BamArray, ReadsEqualTheBackingFileWithACacheAnEighthOfTheData) {
  for (const auto& s : schedules()) {
    for (bool alone : {false, true}) {
      cpu::executor ex(s.exec);
      storage_rig rig(ex, {.device_bytes = 64 * 4096, .deterministic = s.deterministic, .seed = s.seed});
      page_cache cache({.name = "eighth", .line_bytes = 4096, .lines = 8});
      const auto a = cache.array<std::uint64_t>(cache.add_range(64, 0, rig.device_list(), rig.queues), 64 * words_per_line);
      const unsigned blocks = 4, threads = 64, steps = 6;
      std::vector<std::uint64_t> out(blocks * threads * steps, 0);
      ex.launch({dim3(blocks), dim3(threads), 0, "read_walk"}, read_walk{}, a, steps, alone, out.data());
      for (std::uint64_t g = 0; g < blocks * threads; ++g)
        for (unsigned k = 0; k < steps; ++k)
          ASSERT_EQ(out[g * steps + k], pattern(0, walk(g, k, a.size()))) << "thread " << g << " step " << k;
      const cache_counters c = cache.counters();
      EXPECT_GT(c.evictions, 0u);
      EXPECT_EQ(c.reads, rig.controllers[0]->counters().reads);
      EXPECT_EQ(c.misses, c.reads);
    }
  }
}

struct read_one_line {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, std::uint64_t* out) const {
    out[t.global_id()] = a.read(t, 5 * words_per_line + t.global_id() % words_per_line);
  }
};

TEST(BamArray, AColdLineWantedByManyThreadsIsReadOnce) {
  for (const auto& s : schedules()) {
    cpu::executor ex(s.exec);
    storage_rig rig(ex, {.device_bytes = 16 * 4096, .deterministic = s.deterministic, .seed = s.seed});
    page_cache cache({.line_bytes = 4096, .lines = 4});
    const auto a = cache.array<std::uint64_t>(cache.add_range(16, 0, rig.device_list(), rig.queues), 16 * words_per_line);
    std::vector<std::uint64_t> out(8 * 64, 0);
    ex.launch({dim3(8), dim3(64), 0, "read_one_line"}, read_one_line{}, a, out.data());
    for (std::uint64_t g = 0; g < out.size(); ++g) ASSERT_EQ(out[g], pattern(0, 5 * words_per_line + g % words_per_line));
    EXPECT_EQ(rig.controllers[0]->counters().reads, 1u);
    EXPECT_EQ(cache.counters().misses, 1u);
    EXPECT_EQ(cache.counters().hits, 8u * 2 - 1) << "one coalesced request per warp";
  }
}

struct write_walk {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, unsigned steps) const {
    const std::uint64_t g = t.global_id();
    // Distinct elements per thread and step: g + k * threads, spread over every page.
    for (unsigned k = 0; k < steps; ++k) {
      const std::uint64_t i = (g + k * t.global_count()) * 3 % a.size();
      a.write(t, i, 0xabc0000000000000ull + i);
    }
  }
};

TEST(BamArray, WritesReachTheFileAfterFlushEvenBeyondTheCacheSize) {
  for (const auto& s : schedules()) {
    cpu::executor ex(s.exec);
    storage_rig rig(ex, {.device_bytes = 64 * 4096, .deterministic = s.deterministic, .seed = s.seed});
    page_cache cache({.line_bytes = 4096, .lines = 6});
    const std::uint64_t n = 64 * words_per_line;
    const auto a = cache.array<std::uint64_t>(cache.add_range(64, 0, rig.device_list(), rig.queues), n);
    const unsigned blocks = 4, threads = 64, steps = 8;
    ex.launch({dim3(blocks), dim3(threads), 0, "write_walk"}, write_walk{}, a, steps);
    EXPECT_GT(cache.counters().write_backs, 0u) << "dirty victims were written back";
    flush(ex, cache);
    EXPECT_EQ(cache.dirty_pages(), 0u);
    EXPECT_EQ(rig.controllers[0]->counters().flushes, 1u);
    std::vector<std::uint64_t> expect(n);
    for (std::uint64_t i = 0; i < n; ++i) expect[i] = pattern(0, i);
    for (std::uint64_t g = 0; g < blocks * threads; ++g)
      for (unsigned k = 0; k < steps; ++k) {
        const std::uint64_t i = (g + k * blocks * threads) * 3 % n;
        expect[i] = 0xabc0000000000000ull + i;
      }
    const auto file = read_words(rig.devices[0]->path());
    for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(file[i], expect[i]) << "word " << i;
  }
}

struct add_ones {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, unsigned counters) const {
    for (unsigned k = 0; k < 4; ++k) a.atomic_add(t, (t.global_id() + k) % counters * words_per_line, std::uint64_t{1});
  }
};

TEST(BamArray, ContendedAtomicAddsAreExact) {
  for (const auto& s : schedules()) {
    cpu::executor ex(s.exec);
    storage_rig rig(ex, {.device_bytes = 16 * 4096, .deterministic = s.deterministic, .seed = s.seed});
    page_cache cache({.line_bytes = 4096, .lines = 3});  // fewer lines than counters: they are evicted and reloaded
    const unsigned counters = 10;
    const auto a = cache.array<std::uint64_t>(cache.add_range(16, 0, rig.device_list(), rig.queues), 16 * words_per_line);
    ex.launch({dim3(4), dim3(64), 0, "add_ones"}, add_ones{}, a, counters);
    flush(ex, cache);
    const auto file = read_words(rig.devices[0]->path());
    std::uint64_t added = 0;
    for (unsigned c = 0; c < counters; ++c) added += file[c * words_per_line] - pattern(0, c * words_per_line);
    EXPECT_EQ(added, 4u * 256);
    std::vector<std::uint64_t> expect(counters, 0);
    for (std::uint64_t g = 0; g < 256; ++g)
      for (unsigned k = 0; k < 4; ++k) ++expect[(g + k) % counters];
    for (unsigned c = 0; c < counters; ++c)
      EXPECT_EQ(file[c * words_per_line] - pattern(0, c * words_per_line), expect[c]) << "counter " << c;
  }
}

TEST(BamArray, StripedRangeReadsPageFromDeviceModN) {
  for (const auto& s : schedules()) {
    cpu::executor ex(s.exec);
    storage_rig rig(ex, {.devices = 2, .device_bytes = 32 * 4096, .deterministic = s.deterministic, .seed = s.seed});
    page_cache cache({.line_bytes = 4096, .lines = 8});
    const std::uint64_t n = 64 * words_per_line;
    const auto a = cache.array<std::uint64_t>(cache.add_range(64, 0, rig.device_list(), rig.queues), n);
    std::vector<std::uint64_t> out(4 * 64 * 4, 0);
    ex.launch({dim3(4), dim3(64), 0, "read_walk"}, read_walk{}, a, 4u, false, out.data());
    for (std::uint64_t g = 0; g < 256; ++g)
      for (unsigned k = 0; k < 4; ++k) {
        const std::uint64_t i = walk(g, k, n), page = i / words_per_line;
        ASSERT_EQ(out[g * 4 + k], pattern(page % 2, (page / 2) * words_per_line + i % words_per_line)) << i;
      }
    EXPECT_GT(rig.controllers[0]->counters().reads, 0u);
    EXPECT_GT(rig.controllers[1]->counters().reads, 0u);
  }
}

TEST(BamArray, ReplicatedRangeWritesEveryDeviceAndReadsRoundRobin) {
  for (const auto& s : schedules()) {
    cpu::executor ex(s.exec);
    storage_rig rig(ex, {.devices = 2, .device_bytes = 16 * 4096, .replicas = true, .deterministic = s.deterministic,
                         .seed = s.seed});
    page_cache cache({.line_bytes = 4096, .lines = 4});
    const std::uint64_t n = 16 * words_per_line;
    const auto a =
        cache.array<std::uint64_t>(cache.add_range(16, 0, rig.device_list(), rig.queues, distribution::replicate), n);
    ex.launch({dim3(2), dim3(64), 0, "write_walk"}, write_walk{}, a, 4u);
    flush(ex, cache);
    const auto d0 = read_words(rig.devices[0]->path()), d1 = read_words(rig.devices[1]->path());
    for (std::uint64_t g = 0; g < 128; ++g)
      for (unsigned k = 0; k < 4; ++k) {
        const std::uint64_t i = (g + k * 128) * 3 % n;
        ASSERT_EQ(d0[i], 0xabc0000000000000ull + i);
        ASSERT_EQ(d1[i], 0xabc0000000000000ull + i);
      }
    EXPECT_GT(rig.controllers[0]->counters().reads, 0u);
    EXPECT_GT(rig.controllers[1]->counters().reads, 0u);
  }
}

}  // namespace
