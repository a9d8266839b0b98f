// The undo launch over a crash's occupied log slots: one warp per block in
// the timed mode (which models a GPU: the slots spread over every SM),
// 256-thread blocks on the cpu executor's parallel schedule; on both, every
// slot is undone by exactly one thread.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "common/undo_occupied_slots.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/sim/gpu_model.hpp"

namespace {
using namespace gpmx;

// Counts, per slot, the threads that took it, and notes the launch's shape.
struct shape {
  std::atomic<std::uint32_t> block{0}, grid{0}, launches{0};
};
struct count_slots {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, global_span<const std::uint64_t> slots, std::atomic<std::uint32_t>* seen,
                          shape* s) const {
    if (t.global_id() == 0) {
      s->block = t.block_dim().x;
      s->grid = t.grid_dim().x;
      ++s->launches;
    }
    std::uint64_t slot = 0;
    if (!apps::occupied_slot_of(t, slots, slot)) return;
    seen[slot].fetch_add(1, std::memory_order_relaxed);
  }
};

// Slots 0, 3, 6, ... below 3 * n.
std::vector<std::uint64_t> every_third(std::uint64_t n) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t i = 0; i < n; ++i) out.push_back(3 * i);
  return out;
}

// Undoes slots 0, 3, ..., 1797 on `target`: each is taken by exactly one
// thread, in one launch of `grid` blocks of `block` threads.
void expect_600_slots_undone_in(const launch_target& target, std::uint32_t block, std::uint32_t grid) {
  EXPECT_EQ(apps::undo_block_threads(target), block);
  const std::vector<std::uint64_t> slots = every_third(600);
  std::vector<std::atomic<std::uint32_t>> seen(3 * slots.size());
  shape s;
  apps::launch_over_occupied_slots(target, slots, "count", count_slots{}, seen.data(), &s);
  for (std::uint64_t slot = 0; slot < seen.size(); ++slot)
    EXPECT_EQ(seen[slot].load(), slot % 3 == 0 ? 1u : 0u) << "slot " << slot;
  EXPECT_EQ(s.launches.load(), 1u);
  EXPECT_EQ(s.block.load(), block);
  EXPECT_EQ(s.grid.load(), grid);
}

TEST(UndoGeometry, TheParallelScheduleRunsTheSlotsIn256ThreadBlocks) {
  cpu::executor ex;
  expect_600_slots_undone_in(launch_target(ex), 256, 3);
}

TEST(UndoGeometry, TheTimedModeRunsOneWarpPerBlockOverEverySm) {
  sim::gpu_model gpu(sim::sim_config{});
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  expect_600_slots_undone_in(launch_target(ex), 32, 19);
  // 19 blocks on 19 of the default configuration's 30 SMs, where
  // 256-thread blocks would fill 3.
  const sim::run_totals& totals = gpu.totals();
  ASSERT_EQ(totals.launches.size(), 1u);
  std::uint64_t blocks = 0, busy_sms = 0;
  for (const sm_activity& sm : totals.sms) {
    blocks += sm.blocks;
    busy_sms += sm.blocks != 0 ? 1 : 0;
  }
  EXPECT_EQ(blocks, 19u);
  EXPECT_EQ(busy_sms, 19u);
}

TEST(UndoGeometry, AnEmptyLogLaunchesNothing) {
  cpu::executor ex;
  shape s;
  apps::launch_over_occupied_slots(launch_target(ex), {}, "count", count_slots{}, nullptr, &s);
  EXPECT_EQ(s.launches.load(), 0u);
}

}  // namespace
