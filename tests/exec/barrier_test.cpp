#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "kernels/exec_kernels.hpp"

namespace {
using namespace gpmx;

std::vector<std::uint64_t> reference_sums(const std::vector<std::uint32_t>& in, std::uint32_t block) {
  std::vector<std::uint64_t> sums(in.size() / block, 0);
  for (std::size_t i = 0; i < in.size(); ++i) sums[i / block] += in[i];
  return sums;
}

class BlockReduction : public ::testing::TestWithParam<std::tuple<unsigned, std::uint32_t>> {};

TEST_P(BlockReduction, StaticAndDynamicSharedMemoryMatchTheReference) {
  const auto [workers, block] = GetParam();
  cpu::executor ex({.workers = workers});
  const std::uint32_t blocks = 37;
  std::vector<std::uint32_t> in(std::size_t(blocks) * block);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = test_kernels::mix(i) % 1000;
  const auto want = reference_sums(in, block);
  std::vector<std::uint64_t> out(blocks, 0);
  ex.launch({dim3(blocks), dim3(block), 0, "block_sum"}, test_kernels::block_sum{}, in.data(), out.data());
  EXPECT_EQ(out, want);
  std::fill(out.begin(), out.end(), 0);
  ex.launch({dim3(blocks), dim3(block), block * sizeof(std::uint64_t), "block_sum_dynamic"},
            test_kernels::block_sum_dynamic{}, in.data(), out.data());
  EXPECT_EQ(out, want);
}

INSTANTIATE_TEST_SUITE_P(Shapes, BlockReduction,
                         ::testing::Combine(::testing::Values(1u, 2u),
                                            ::testing::Values(32u, 256u, 1024u)));

TEST(Barrier, CountAndOrVariants) {
  cpu::executor ex({.workers = 2});
  for (std::uint32_t block : {1u, 33u, 256u, 1024u})
    for (std::uint32_t m : {1u, 2u, 7u, 5000u}) {
      std::vector<int> out(4 * 3, -1);
      ex.launch({dim3(4), dim3(block)}, test_kernels::barrier_votes{}, m, out.data());
      const int count = int((block + m - 1) / m);
      for (int b = 0; b < 4; ++b) {
        EXPECT_EQ(out[std::size_t(b) * 3 + 0], count) << "block " << block << " m " << m;
        EXPECT_EQ(out[std::size_t(b) * 3 + 1], count == int(block) ? 1 : 0);
        EXPECT_EQ(out[std::size_t(b) * 3 + 2], 1);
      }
    }
}

TEST(Barrier, ExitedThreadsDoNotCount) {
  cpu::executor ex({.workers = 1});
  for (std::uint32_t live : {1u, 17u, 255u}) {
    std::vector<int> out(3, -1);
    ex.launch({dim3(3), dim3(256)}, test_kernels::barrier_after_exit{}, live, out.data());
    for (int v : out) EXPECT_EQ(v, int(live));
  }
}

TEST(Barrier, MultiDimensionalBlocksShareOneBarrier) {
  cpu::executor ex({.workers = 2});
  const dim3 block(16, 8, 2);
  std::vector<std::uint32_t> in(block.count() * 5);
  std::iota(in.begin(), in.end(), 0u);
  std::vector<std::uint64_t> out(5, 0);
  ex.launch({dim3(5), block}, test_kernels::block_sum{}, in.data(), out.data());
  EXPECT_EQ(out, reference_sums(in, std::uint32_t(block.count())));
}

}  // namespace
