#include "exec/warp_semantics.hpp"

#include <gtest/gtest.h>

#include "reference_warp.hpp"

namespace {
using gpmx::cpu::detail::shuffle_source;
using gpmx::cpu::detail::warp_op;
using namespace gpmx::test;

TEST(WarpSemantics, ShuffleSourcesMatchTheProgrammingGuide) {
  for (int width : {1, 2, 4, 8, 16, 32})
    for (unsigned lane = 0; lane < 32; ++lane)
      for (int a = 0; a < 40; ++a) {
        EXPECT_EQ(shuffle_source(warp_op::shfl, lane, a, width), ref_shfl_idx(lane, a, width))
            << "idx lane " << lane << " src " << a << " width " << width;
        if (a < 32) {
          EXPECT_EQ(shuffle_source(warp_op::shfl_up, lane, a, width), ref_shfl_up(lane, unsigned(a), width))
              << "up lane " << lane << " delta " << a << " width " << width;
          EXPECT_EQ(shuffle_source(warp_op::shfl_down, lane, a, width),
                    ref_shfl_down(lane, unsigned(a), width))
              << "down lane " << lane << " delta " << a << " width " << width;
          EXPECT_EQ(shuffle_source(warp_op::shfl_xor, lane, a, width), ref_shfl_xor(lane, a, width))
              << "xor lane " << lane << " mask " << a << " width " << width;
        }
      }
}

TEST(WarpSemantics, VotesAndMatch) {
  gpmx::cpu::detail::warp_arrivals a;
  a.mask = 0x0000f00fu;
  for (unsigned l = 0; l < 32; ++l) a.value[l] = l % 2;
  a.op = warp_op::ballot;
  EXPECT_EQ(gpmx::cpu::detail::warp_result(a, 0), 0x0000a00au);
  a.op = warp_op::any;
  EXPECT_EQ(gpmx::cpu::detail::warp_result(a, 0), 1u);
  a.op = warp_op::all;
  EXPECT_EQ(gpmx::cpu::detail::warp_result(a, 0), 0u);
  a.op = warp_op::match_any;
  EXPECT_EQ(gpmx::cpu::detail::warp_result(a, 1), 0x0000a00au);
  EXPECT_EQ(gpmx::cpu::detail::warp_result(a, 2), 0x00005005u);
}

}  // namespace
