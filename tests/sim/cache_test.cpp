#include "gpmx/sim/cache.hpp"

#include <gtest/gtest.h>

namespace {

using gpmx::sim::evicted_line;
using gpmx::sim::sectored_cache;

TEST(Cache, FillThenLookupHitsOnlyFilledSectors) {
  sectored_cache c(4096, 128, 32, 4);
  evicted_line v;
  EXPECT_EQ(c.lookup(0x1000, 0xf), 0u);
  c.fill(0x1000, 0x3, 0, v);
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(c.lookup(0x1000, 0xf), 0x3u);
}

TEST(Cache, FullyAssociativeEvictsLeastRecentlyUsed) {
  sectored_cache c(512 * 128, 128, 32, 512);  // one set, like the L1
  ASSERT_EQ(c.sets(), 1u);
  evicted_line v;
  for (std::uint64_t i = 0; i < 512; ++i) {
    c.fill(i * 128, 0xf, 0, v);
    ASSERT_FALSE(v.valid);
  }
  c.lookup(0, 0xf);            // line 0 becomes most recently used
  c.fill(512 * 128, 0xf, 0, v);  // evicts line 1, the least recently used
  ASSERT_TRUE(v.valid);
  EXPECT_EQ(v.line_addr, 128u);
  EXPECT_EQ(c.lookup(0, 0xf), 0xfu);
  EXPECT_EQ(c.lookup(128, 0xf), 0u);
  EXPECT_EQ(c.lines_valid(), 512u);
}

TEST(Cache, DirtyVictimCarriesItsDirtySectors) {
  sectored_cache c(128 * 2, 128, 32, 2);
  evicted_line v;
  c.store(0x0, 0x2, 1, v);
  c.fill(0x0, 0x1, 1, v);
  c.fill(0x80, 0xf, 0, v);
  c.fill(0x100, 0xf, 0, v);
  ASSERT_TRUE(v.valid);
  EXPECT_EQ(v.line_addr, 0x0u);
  EXPECT_EQ(v.valid_mask, 0x3u);
  EXPECT_EQ(v.dirty_mask, 0x2u);
  EXPECT_EQ(v.tag, 1u);
}

TEST(Cache, FlushDirtyReturnsEachDirtyLineOnceAndCleansIt) {
  sectored_cache c(64 * 1024, 128, 32, 512);
  evicted_line v;
  c.store(0x0, 0x1, 0, v);
  c.store(0x1000, 0xc, 1, v);
  c.fill(0x2000, 0xf, 0, v);
  auto d = c.flush_dirty();
  ASSERT_EQ(d.size(), 2u);
  EXPECT_TRUE(c.flush_dirty().empty());
  EXPECT_EQ(c.lookup(0x1000, 0xf), 0xcu) << "still valid after the flush";
}

TEST(Cache, InvalidateByPredicateAndAll) {
  sectored_cache c(64 * 1024, 128, 32, 512);
  evicted_line v;
  for (std::uint64_t i = 0; i < 10; ++i) c.fill(i * 128, 0xf, std::uint8_t(i % 2), v);
  EXPECT_EQ(c.invalidate_if([](const gpmx::sim::cache_line& l) { return l.tag == 1; }), 5u);
  EXPECT_EQ(c.lookup(128, 0xf), 0u);
  EXPECT_EQ(c.lookup(0, 0xf), 0xfu);
  EXPECT_EQ(c.invalidate_all(), 5u);
  EXPECT_EQ(c.lines_valid(), 0u);
  // Invalidated ways are reused before anything is evicted.
  for (std::uint64_t i = 0; i < 512; ++i) {
    c.fill(0x100000 + i * 128, 0xf, 0, v);
    ASSERT_FALSE(v.valid);
  }
}

TEST(Cache, SetAssociativeKeepsEveryLineOfASetUpToItsWays) {
  // Many lines through a 16-way cache: the hash table and LRU lists stay
  // consistent (every present line is found, nothing absent is).
  sectored_cache c(64 * 16 * 128, 128, 32, 16);
  evicted_line v;
  std::uint64_t evictions = 0;
  for (std::uint64_t i = 0; i < 20000; ++i) {
    c.fill((i * 7919 % 5000) * 128, 0x1, 0, v);
    evictions += v.valid;
  }
  EXPECT_EQ(c.lines_valid(), 64u * 16);
  std::uint64_t found = 0;
  for (std::uint64_t i = 0; i < 5000; ++i) found += c.find(i * 128) != nullptr;
  EXPECT_EQ(found, 64u * 16);
  EXPECT_GT(evictions, 0u);
}

}  // namespace

TEST(Cache, RepeatedLookupsOfOneLineSeeItsEvictionAndInvalidation) {
  // The cache remembers its last answer; an evicted or invalidated line
  // must not be found through it.
  sectored_cache c(128 * 2, 128, 32, 2);  // one set of two ways
  evicted_line v;
  c.fill(0x000, 0xf, 0, v);
  ASSERT_NE(c.find(0x000), nullptr);
  EXPECT_EQ(c.lookup(0x000, 0xf), 0xfu);
  c.fill(0x080, 0xf, 0, v);
  c.fill(0x100, 0xf, 0, v);  // evicts 0x000, the least recently used
  ASSERT_TRUE(v.valid);
  EXPECT_EQ(v.line_addr, 0x000u);
  EXPECT_EQ(c.find(0x000), nullptr);
  EXPECT_EQ(c.lookup(0x000, 0xf), 0u);
  ASSERT_NE(c.find(0x100), nullptr);
  EXPECT_TRUE(c.invalidate(0x100));
  EXPECT_EQ(c.find(0x100), nullptr);
  EXPECT_EQ(c.lookup(0x100, 0xf), 0u);
  c.fill(0x000, 0x1, 2, v);  // takes the invalidated way: nothing evicted
  EXPECT_FALSE(v.valid);
  ASSERT_NE(c.find(0x000), nullptr);
  EXPECT_EQ(c.find(0x000)->tag, 2u);
  EXPECT_EQ(c.lookup(0x000, 0xf), 0x1u) << "a line refilled after its eviction starts with no sectors";
  EXPECT_EQ(c.lookup(0x080, 0xf), 0xfu);
}
