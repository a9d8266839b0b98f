// Fiber stacks: each starts at a different cache-line offset within its
// page (so parked fibers' newest frames do not all compete for the same
// cache sets), a stack given back is the one taken next, and a stack keeps
// at least all but a page of the bytes asked for, below a guard page.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "exec/stack_pool.hpp"

namespace {
using gpmx::cpu::detail::stack_pool;

std::uintptr_t top(const boost::context::stack_context& sc) { return reinterpret_cast<std::uintptr_t>(sc.sp); }

TEST(StackPool, StacksStartAtDifferentOffsetsWithinAPage) {
  const auto page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
  stack_pool pool(64 * 1024);
  std::vector<boost::context::stack_context> taken;
  std::set<std::uintptr_t> offsets;
  for (int i = 0; i < 64; ++i) {
    taken.push_back(pool.take());
    const auto& sc = taken.back();
    EXPECT_EQ(top(sc) % 64, 0u) << "a stack's top is on a cache line";
    EXPECT_GE(sc.size, 64 * 1024 - page);
    EXPECT_LE(sc.size, 64 * 1024u);
    offsets.insert(top(sc) % page);
  }
  // 64 stacks taken in a row: every cache-line offset of a page.
  EXPECT_EQ(offsets.size(), 64u);
  for (auto& sc : taken) pool.give_back(sc);
}

TEST(StackPool, AStackGivenBackIsTakenAgainWhole) {
  stack_pool pool(64 * 1024);
  auto a = pool.take();
  auto b = pool.take();
  const auto a_top = top(a), a_size = a.size;
  pool.give_back(b);
  pool.give_back(a);
  const auto again = pool.take();  // the last given back
  EXPECT_EQ(top(again), a_top);
  EXPECT_EQ(again.size, a_size);
  // The whole stack is writable, from its bottom to its top.
  auto* bottom = static_cast<volatile char*>(again.sp) - again.size;
  bottom[0] = 1;
  static_cast<volatile char*>(again.sp)[-1] = 2;
  EXPECT_EQ(pool.in_use(), 1u);
  auto back = again;
  pool.give_back(back);
  EXPECT_EQ(pool.in_use(), 0u);
}

std::size_t mappings_of_this_process() {
  std::ifstream maps("/proc/self/maps");
  std::size_t n = 0;
  for (std::string line; std::getline(maps, line);) ++n;
  return n;
}

TEST(StackPool, ThousandsOfStacksTakeFewMappingsWhereTheKernelHasGuardRegions) {
  stack_pool pool(64 * 1024);
  const std::size_t before = mappings_of_this_process();
  std::vector<boost::context::stack_context> taken;
  for (int i = 0; i < 4096; ++i) taken.push_back(pool.take());
  const std::size_t added = mappings_of_this_process() - before;
  // About one per slab (64 stacks); a sanitizer's shadow adds a few more.
  if (pool.guards_share_the_mapping())
    EXPECT_LT(added, 4096 / 4) << "a mapping per stack or guard page";
  else
    EXPECT_LE(added, 2 * 4096 + 8) << "more than a stack and its guard page each";
  for (auto& sc : taken) pool.give_back(sc);
}

TEST(StackPool, WritingBelowAStackFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  stack_pool pool(64 * 1024);
  auto a = pool.take();
  auto b = pool.take();  // above or below a: the guard page separates them either way
  auto* bottom = static_cast<volatile char*>(b.sp) - b.size;
  bottom[0] = 1;  // the stack's lowest byte is its own
  EXPECT_DEATH(bottom[-1] = 1, "");
  pool.give_back(b);
  pool.give_back(a);
}

}  // namespace
