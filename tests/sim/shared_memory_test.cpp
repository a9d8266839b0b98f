#include "gpmx/sim/shared_memory.hpp"

#include <gtest/gtest.h>

namespace {

using gpmx::sim::bank_conflict_degree;
using gpmx::sim::lane_access;

std::array<lane_access, 32> strided(std::uint64_t stride, std::uint32_t bytes = 4) {
  std::array<lane_access, 32> l{};
  for (unsigned i = 0; i < 32; ++i) l[i] = {0x400 + i * stride, bytes};
  return l;
}

TEST(SharedMemory, ConsecutiveWordsDoNotConflict) {
  EXPECT_EQ(bank_conflict_degree(~0u, strided(4).data(), 32, 4), 1u);
}

TEST(SharedMemory, Stride2IsTwoWay) {
  EXPECT_EQ(bank_conflict_degree(~0u, strided(8).data(), 32, 4), 2u);
}

TEST(SharedMemory, Stride32WordsIsThirtyTwoWay) {
  EXPECT_EQ(bank_conflict_degree(~0u, strided(128).data(), 32, 4), 32u);
}

TEST(SharedMemory, BroadcastOfOneWordDoesNotConflict) {
  EXPECT_EQ(bank_conflict_degree(~0u, strided(0).data(), 32, 4), 1u);
}

TEST(SharedMemory, AtomicUpdatesOfOneWordTakeTurns) {
  EXPECT_EQ(bank_conflict_degree(~0u, strided(0).data(), 32, 4, true), 32u);
  EXPECT_EQ(bank_conflict_degree(0xFu, strided(0).data(), 32, 4, true), 4u);
  EXPECT_EQ(bank_conflict_degree(~0u, strided(4).data(), 32, 4, true), 1u) << "distinct words, distinct banks";
}

TEST(SharedMemory, InactiveLanesDoNotConflict) {
  EXPECT_EQ(bank_conflict_degree(0x1u, strided(128).data(), 32, 4), 1u);
  EXPECT_EQ(bank_conflict_degree(0x3u, strided(128).data(), 32, 4), 2u);
  EXPECT_EQ(bank_conflict_degree(0, strided(128).data(), 32, 4), 0u);
}

TEST(SharedMemory, CyclesAreLatencyPlusDegreeMinusOne) {
  EXPECT_EQ(gpmx::sim::shared_access_cycles(24, 1), 24u);
  EXPECT_EQ(gpmx::sim::shared_access_cycles(24, 32), 55u);
}

}  // namespace
