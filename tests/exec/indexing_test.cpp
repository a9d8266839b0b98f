#include <gtest/gtest.h>

#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "kernels/exec_kernels.hpp"

namespace {
using namespace gpmx;

TEST(Indexing, ThreeDimensionalNumberingMatchesCuda) {
  cpu::executor ex({.workers = 2});
  const dim3 grid(3, 2, 2), block(8, 4, 2);
  const std::uint64_t n = grid.count() * block.count();
  std::vector<std::uint32_t> out(n * 8, 0xdeadbeef);
  ex.launch({grid, block, 0, "indices"}, test_kernels::indices{}, out.data());
  std::uint64_t g = 0;
  for (std::uint32_t bz = 0; bz < grid.z; ++bz)
    for (std::uint32_t by = 0; by < grid.y; ++by)
      for (std::uint32_t bx = 0; bx < grid.x; ++bx)
        for (std::uint32_t tz = 0; tz < block.z; ++tz)
          for (std::uint32_t ty = 0; ty < block.y; ++ty)
            for (std::uint32_t tx = 0; tx < block.x; ++tx, ++g) {
              const std::uint32_t rank = (tz * block.y + ty) * block.x + tx;
              const std::uint32_t want[8] = {tx, ty, tz, bx, by, bz, rank / 32, rank % 32};
              for (int k = 0; k < 8; ++k) ASSERT_EQ(out[g * 8 + std::uint64_t(k)], want[k]) << "thread " << g << " field " << k;
            }
}

TEST(Indexing, LargeGridFillsEveryElement) {
  cpu::executor ex({.workers = 2});
  const std::uint64_t n = std::uint64_t(1) << 22;
  std::vector<std::uint32_t> out(n, 0);
  // 2-D grid of 64-thread blocks, to cross grid.y as well as grid.x.
  ex.launch({dim3(1024, 64), dim3(64), 0, "fill"}, test_kernels::fill{}, out.data(), n);
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], test_kernels::mix(i)) << i;
}

TEST(Indexing, ManySmallBlocksAndTheMaximumBlock) {
  cpu::executor ex({.workers = 2});
  const std::uint64_t n = 100000;
  std::vector<std::uint32_t> out(n, 0);
  ex.launch({dim3(std::uint32_t(n)), dim3(1)}, test_kernels::fill{}, out.data(), n);
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], test_kernels::mix(i));
  std::vector<std::uint32_t> big(1024 * 3, 0);
  ex.launch({dim3(3), dim3(1024)}, test_kernels::fill{}, big.data(), std::uint64_t(big.size()));
  for (std::uint64_t i = 0; i < big.size(); ++i) ASSERT_EQ(big[i], test_kernels::mix(i));
}

TEST(Indexing, ArgumentsAreCopiedOncePerLaunch) {
  cpu::executor ex({.workers = 1});
  std::vector<int> seen(64, 0);
  struct payload {
    int base;
  };
  ex.launch({dim3(2), dim3(32)},
            [](auto& t, payload p, int* s) { s[t.global_id()] = p.base + int(t.global_id()); },
            payload{100}, seen.data());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(seen[std::size_t(i)], 100 + i);
}

}  // namespace

namespace {
TEST(Indexing, OneDimensionalBlocksHaveZeroYAndZ) {
  gpmx::cpu::executor ex({.workers = 1});
  std::vector<std::uint32_t> out(2 * 96 * 8, 0xdeadbeef);
  ex.launch({gpmx::dim3(2), gpmx::dim3(96)}, gpmx::test_kernels::indices{}, out.data());
  for (std::uint32_t g = 0; g < 2 * 96; ++g) {
    EXPECT_EQ(out[g * 8 + 0], g % 96);
    EXPECT_EQ(out[g * 8 + 1], 0u);
    EXPECT_EQ(out[g * 8 + 2], 0u);
    EXPECT_EQ(out[g * 8 + 3], g / 96);
    EXPECT_EQ(out[g * 8 + 4], 0u);
    EXPECT_EQ(out[g * 8 + 5], 0u);
  }
}
}  // namespace
