// Reference reuse: a cursor keeps its page pinned while the index stays in
// it (one probe per page), marks pages dirty only when it writes, and a
// cache whose every line is pinned by waiting threads is reported by name
// instead of spinning for ever.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "gpmx/storage/cache_memory.hpp"
#include "storage/storage_rig.hpp"

namespace {
using namespace storage_test;

constexpr std::uint64_t words_per_line = 4096 / 8;

struct cursor_scan {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, std::uint64_t per_thread, bool write, std::uint64_t* sums,
                  std::uint64_t* probes) const {
    array_cursor<std::uint64_t> c(a);
    const std::uint64_t first = t.global_id() * per_thread;
    std::uint64_t sum = 0;
    for (std::uint64_t i = first; i < first + per_thread; ++i) {
      if (write) c.write(t, i, i);
      else sum += c.read(t, i);
    }
    c.done(t);
    sums[t.global_id()] = sum;
    probes[t.global_id()] = c.probes();
  }
};

TEST(BamCursor, OneProbePerPageAndDirtyOnlyOnWrites) {
  for (bool det : {false, true}) {
    cpu::executor ex(det ? deterministic(4) : parallel());
    storage_rig rig(ex, {.device_bytes = 32 * 4096, .deterministic = det, .seed = 4});
    page_cache cache({.line_bytes = 4096, .lines = 8});
    const auto a = cache.array<std::uint64_t>(cache.add_range(32, 0, rig.device_list(), rig.queues), 32 * words_per_line);
    const std::uint64_t per_thread = 2 * words_per_line;  // two pages each
    std::vector<std::uint64_t> sums(16), probes(16);
    launch(ex, cache, {dim3(1), dim3(16), 0, "cursor_scan"}, cursor_scan{}, a, per_thread, false, sums.data(),
           probes.data());
    for (std::uint64_t g = 0; g < 16; ++g) {
      std::uint64_t expect = 0;
      for (std::uint64_t i = g * per_thread; i < (g + 1) * per_thread; ++i) expect += pattern(0, i);
      EXPECT_EQ(sums[g], expect) << g;
      EXPECT_EQ(probes[g], 2u) << g;
    }
    EXPECT_EQ(cache.counters().hits + cache.counters().misses, 32u);
    EXPECT_EQ(cache.dirty_pages(), 0u) << "reading through a cursor dirties nothing";
    flush(ex, cache);
    EXPECT_EQ(rig.controllers[0]->counters().writes, 0u);
    launch(ex, cache, {dim3(1), dim3(16), 0, "cursor_write"}, cursor_scan{}, a, per_thread, true, sums.data(),
           probes.data());
    flush(ex, cache);
    const auto file = read_words(rig.devices[0]->path());
    for (std::uint64_t i = 0; i < 32 * words_per_line; ++i) ASSERT_EQ(file[i], i);
  }
}

// Each thread keeps one page pinned with a cursor, then asks for another.
struct hold_and_ask {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, std::uint64_t* out) const {
    array_cursor<std::uint64_t> held(a), other(a);
    const std::uint64_t g = t.global_id();
    out[g] = held.read(t, (g % 32) * words_per_line);
    t.syncthreads();  // every thread holds its page before anyone asks for more
    out[g] += other.read(t, ((g + 1) % 32) * words_per_line + 1);
    other.done(t);
    held.done(t);
  }
};

TEST(BamCursor, ACacheWhoseEveryLineIsPinnedIsReportedByName) {
  for (bool det : {false, true}) {
    cpu::executor ex(det ? deterministic(2)
                         : cpu::executor_options{.workers = 2, .spin_timeout = std::chrono::milliseconds(500)});
    storage_rig rig(ex, {.device_bytes = 32 * 4096, .deterministic = det, .seed = 2});
    page_cache cache({.name = "tiny", .line_bytes = 4096, .lines = 4});
    const auto a = cache.array<std::uint64_t>(cache.add_range(32, 0, rig.device_list(), rig.queues), 32 * words_per_line);
    std::vector<std::uint64_t> out(32);
    try {
      launch(ex, cache, {dim3(1), dim3(32), 0, "hold_and_ask"}, hold_and_ask{}, a, out.data());
      ADD_FAILURE() << "32 pinned pages fit a 4-line cache";
    } catch (const storage_error& e) {
      EXPECT_EQ(e.code(), gpmx::error_code::capacity);
      EXPECT_NE(std::string(e.what()).find("cache 'tiny' (4 lines of 4096 bytes)"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
