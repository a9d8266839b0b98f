#include "gpmx/sim/coalescer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <vector>

#include "gpmx/support/error.hpp"

namespace {

using gpmx::sim::coalesce;
using gpmx::sim::lane_access;
using gpmx::sim::line_request;

constexpr std::uint32_t all = 0xffffffffu;

std::array<lane_access, 32> strided(std::uint64_t base, std::uint64_t stride, std::uint32_t bytes) {
  std::array<lane_access, 32> l{};
  for (unsigned i = 0; i < 32; ++i) l[i] = {base + i * stride, bytes};
  return l;
}

unsigned sectors(const std::vector<line_request>& r) {
  unsigned n = 0;
  for (const auto& x : r) n += unsigned(std::popcount(x.sector_mask));
  return n;
}

TEST(Coalescer, ConsecutiveWordsAreOneLineFourSectors) {
  auto lanes = strided(0x10000, 4, 4);
  auto r = coalesce(all, lanes.data(), 128, 32);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].line_addr, 0x10000u);
  EXPECT_EQ(r[0].sector_mask, 0xfu);
}

TEST(Coalescer, Stride8IsTwoLinesEightSectors) {
  auto r = coalesce(all, strided(0x10000, 8, 4).data(), 128, 32);
  EXPECT_EQ(r.size(), 2u);
  EXPECT_EQ(sectors(r), 8u);
}

TEST(Coalescer, Stride128IsThirtyTwoLines) {
  auto r = coalesce(all, strided(0x10000, 128, 4).data(), 128, 32);
  EXPECT_EQ(r.size(), 32u);
  EXPECT_EQ(sectors(r), 32u);
  for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(r[i].line_addr, 0x10000u + 128 * i) << "first-touch order";
}

TEST(Coalescer, Stride32IsEightLinesThirtyTwoSectors) {
  auto r = coalesce(all, strided(0x10000, 32, 4).data(), 128, 32);
  EXPECT_EQ(r.size(), 8u);
  EXPECT_EQ(sectors(r), 32u);
  for (const auto& x : r) EXPECT_EQ(x.sector_mask, 0xfu);
}

TEST(Coalescer, SameAddressIsOneSector) {
  auto r = coalesce(all, strided(0x10040, 0, 4).data(), 128, 32);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].sector_mask, 0x4u);
}

TEST(Coalescer, AccessStraddlingALineTouchesBoth) {
  std::array<lane_access, 32> lanes{};
  lanes[0] = {0x1007c, 8};  // bytes 0x7c..0x83: the last sector of one line, the first of the next
  auto r = coalesce(1u, lanes.data(), 128, 32);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (line_request{0x10000, 0x8}));
  EXPECT_EQ(r[1], (line_request{0x10080, 0x1}));
}

TEST(Coalescer, InactiveLanesAreIgnored) {
  auto lanes = strided(0x10000, 128, 4);
  auto r = coalesce(0x5u, lanes.data(), 128, 32);  // lanes 0 and 2
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].line_addr, 0x10000u);
  EXPECT_EQ(r[1].line_addr, 0x10100u);
  EXPECT_TRUE(coalesce(0, lanes.data(), 128, 32).empty());
}

TEST(Coalescer, FirstTouchOrderWithRevisits) {
  std::array<lane_access, 32> lanes{};
  lanes[0] = {0x200, 4};
  lanes[1] = {0x0, 4};
  lanes[2] = {0x204 + 64, 4};
  auto r = coalesce(0x7u, lanes.data(), 128, 32);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (line_request{0x200, 0x5}));
  EXPECT_EQ(r[1], (line_request{0x0, 0x1}));
}

TEST(Coalescer, ALineOfThirtyTwoSectorsUsesEveryMaskBit) {
  // 4-byte sectors in a 128-byte line: the last sector is bit 31.
  std::array<lane_access, 32> lanes{};
  lanes[0] = {0x107c, 4};   // the last sector alone
  lanes[1] = {0x1100, 128};  // a whole line
  lanes[2] = {0x1170, 16};   // sectors 28 to 31 of that line again
  auto r = coalesce(0x7u, lanes.data(), 128, 4);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (line_request{0x1000, 0x80000000u}));
  EXPECT_EQ(r[1], (line_request{0x1100, 0xffffffffu}));
  EXPECT_EQ(gpmx::sim::sector_span(8, 127, 2), 0xfffffffcu);
  EXPECT_EQ(gpmx::sim::sector_span(0, 3, 2), 0x1u);
}

TEST(Coalescer, ActiveLanesOfNoBytesTakeNoPart) {
  auto lanes = strided(0x10000, 128, 4);
  lanes[0].bytes = 0;
  lanes[2].bytes = 0;
  auto r = coalesce(0x7u, lanes.data(), 128, 32);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (line_request{0x10080, 0x1}));
  EXPECT_TRUE(coalesce(0x5u, lanes.data(), 128, 32).empty());
}

// Byte by byte: each touched byte's line, in the order lanes first touch
// them, with its sector set.
std::vector<line_request> coalesce_bytewise(std::uint32_t mask, const std::array<lane_access, 32>& lanes,
                                            std::uint32_t line, std::uint32_t sector) {
  std::vector<line_request> out;
  for (unsigned l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u)) continue;
    for (std::uint64_t b = lanes[l].addr; b < lanes[l].addr + lanes[l].bytes; ++b) {
      const std::uint64_t at = b - b % line;
      const std::uint32_t bit = 1u << ((b - at) / sector);
      auto it = std::find_if(out.begin(), out.end(), [&](const line_request& r) { return r.line_addr == at; });
      if (it == out.end()) out.push_back({at, bit});
      else it->sector_mask |= bit;
    }
  }
  return out;
}

TEST(Coalescer, ContiguousWarpsAtEveryAlignmentMatchTheBytes) {
  // A whole warp reading consecutive elements takes a shortcut from its
  // first and last byte; it must give what the lanes would, at every size
  // and offset, lines of 128 and 64 bytes.
  for (const std::uint32_t line : {128u, 64u})
    for (const std::uint32_t bytes : {1u, 2u, 4u, 8u, 12u, 16u, 32u, 64u})
      for (std::uint64_t offset = 0; offset < 2 * line; offset += 3) {
        if (bytes > line) continue;
        const auto lanes = strided(0x40000 + offset, bytes, bytes);
        EXPECT_EQ(coalesce(all, lanes.data(), line, 32), coalesce_bytewise(all, lanes, line, 32))
            << "line " << line << ", " << bytes << " bytes a lane, offset " << offset;
      }
}

TEST(Coalescer, NearlyContiguousWarpsMatchTheBytes) {
  // One lane out of step, or one lane of another size: the lane loop.
  for (const unsigned odd : {1u, 17u, 31u}) {
    auto lanes = strided(0x40010, 4, 4);
    lanes[odd].addr += 4;
    EXPECT_EQ(coalesce(all, lanes.data(), 128, 32), coalesce_bytewise(all, lanes, 128, 32)) << "lane " << odd;
    lanes = strided(0x40010, 4, 4);
    lanes[odd].bytes = 8;
    EXPECT_EQ(coalesce(all, lanes.data(), 128, 32), coalesce_bytewise(all, lanes, 128, 32)) << "lane " << odd;
  }
  const auto lanes = strided(0x40010, 4, 4);
  EXPECT_EQ(coalesce(all >> 1, lanes.data(), 128, 32), coalesce_bytewise(all >> 1, lanes, 128, 32));
}

TEST(Coalescer, LaneWiderThanALineIsRefused) {
  std::array<lane_access, 32> lanes{};
  lanes[0] = {0, 256};
  EXPECT_THROW(coalesce(1u, lanes.data(), 128, 32), gpmx::error);
}

}  // namespace
