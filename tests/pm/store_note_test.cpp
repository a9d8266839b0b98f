// Every PM store a kernel makes through a view is a crash point and counts
// in pm_write_stats, from any worker thread; persist_range reaches a real
// pool by address.
#include <gtest/gtest.h>

#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/pm_write_stats.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;

struct store_each {
  void operator()(auto& t, pm::pm_span<std::uint64_t> slots) const {
    auto v = slots.bind(t);
    v[t.global_id()] = t.global_id();
  }
};

// Threads store without persisting; thread 0 of each block persists the
// block's slots for all of them.
struct drain_block {
  void operator()(auto& t, pm::pm_span<std::uint64_t> slots) const {
    slots.raw()[t.global_id()] = 7 * t.global_id();
    t.syncthreads();
    if (t.thread_rank() == 0)
      t.persist_range(slots.raw() + t.block_rank() * 64, 64 * sizeof(std::uint64_t));
  }
};

TEST(StoreNote, EveryViewStoreCountsBytesAndCrashPointsFromEveryWorker) {
  const gpmx::scratch_dir dir;
  pm::pool p = pm::pool::create(dir.path() / "s.pool", 1 << 20, {.mode = pm::durability::none});
  const std::size_t n = 16 * 64;
  auto slots = p.create_region("slots", n * sizeof(std::uint64_t)).span<std::uint64_t>();
  cpu::executor ex({.workers = 2});
  const std::uint64_t before = pm_write_stats::kernel_stores();
  crash_trigger::arm(0, nullptr);
  ex.launch({dim3(16), dim3(64), 0, "store_each"}, store_each{}, slots);
  EXPECT_EQ(crash_trigger::count(), n);
  crash_trigger::disarm();
  EXPECT_EQ(pm_write_stats::kernel_stores() - before, n * sizeof(std::uint64_t));
}

TEST(StoreNote, PersistRangeFindsThePoolByAddress) {
  const gpmx::scratch_dir dir;
  pm::pool p = pm::pool::create(dir.path() / "r.pool", 1 << 20, {.mode = pm::durability::msync});
  auto slots = p.create_region("slots", 4 * 64 * sizeof(std::uint64_t)).span<std::uint64_t>();
  const std::uint64_t persisted = p.bytes_persisted();
  cpu::executor ex({.workers = 2});
  ex.launch({dim3(4), dim3(64), 0, "drain"}, drain_block{}, slots);
  EXPECT_EQ(p.bytes_persisted() - persisted, 4 * 64 * sizeof(std::uint64_t));
  for (std::uint64_t i = 0; i < 4 * 64; ++i) ASSERT_EQ(slots.raw()[i], 7 * i);
}

}  // namespace
