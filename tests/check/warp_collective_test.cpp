// Warp collectives in the model (docs/persistency-models.md): a barrier
// among the lanes of the mask, matched by their number per lane and mask.
// Under sbrp each participating lane acquires the others' releases; under
// epoch it is a happens-before edge that carries durability; lanes outside
// the mask and other warps are not ordered by it.
#include <gtest/gtest.h>

#include <algorithm>

#include "check/trace_builder.hpp"
#include "gpmx/check/crash_point.hpp"

namespace {
using namespace check_test;
using gpmx::warp_op;
using gpmx::check::persist_model;
using gpmx::check::ordering_crash_points;

constexpr who lane0{0, 0, 0}, lane1{0, 0, 1}, lane2{0, 0, 2}, other_warp{0, 0, 32};

TEST(WarpCollectives, OrderTheParticipatingLanesStoresUnderSbrp) {
  trace_builder b;
  const auto a = b.write(lane0, 0, 8);
  b.warp_collective(lane0, 0x3);
  b.warp_collective(lane1, 0x3);
  const auto c = b.write(lane1, 8, 8);
  const auto own = b.write(lane0, 16, 8);
  const auto o = order_of(b.trace(), persist_model::sbrp);
  EXPECT_TRUE(persists_before(o, a, c));
  EXPECT_FALSE(persists_before(o, a, own));  // as B(k): no Rel ppo W for the lane's own stores
  EXPECT_TRUE(persists_before(order_of(b.trace(), persist_model::sbrp_promoted), a, c));
  EXPECT_FALSE(persists_before(order_of(b.trace(), persist_model::epoch), a, c));  // nothing durable
}

TEST(WarpCollectives, CarryDurabilityUnderEpoch) {
  trace_builder b;
  const auto a = b.write(lane0, 0, 8);
  b.persist(lane0);
  b.warp_collective(lane0, 0x3, warp_op::ballot);
  b.warp_collective(lane1, 0x3, warp_op::ballot);
  const auto c = b.write(lane1, 8, 8);
  EXPECT_TRUE(persists_before(order_of(b.trace(), persist_model::epoch), a, c));
}

TEST(WarpCollectives, OrderNothingForLanesOutsideTheMaskOrOtherWarps) {
  trace_builder b;
  const auto a = b.write(lane0, 0, 8);
  b.warp_collective(lane0, 0x1);  // lane 0 alone
  b.warp_collective(lane2, 0x4);  // lane 2 alone: another instance
  const auto c = b.write(lane2, 8, 8);
  b.warp_collective(other_warp, 0x1);  // lane 0 of warp 1, same mask: another warp
  const auto d = b.write(other_warp, 16, 8);
  for (persist_model m : {persist_model::sbrp, persist_model::sbrp_promoted}) {
    const auto o = order_of(b.trace(), m);
    EXPECT_FALSE(persists_before(o, a, c)) << gpmx::check::to_string(m);
    EXPECT_FALSE(persists_before(o, a, d)) << gpmx::check::to_string(m);
  }
}

TEST(WarpCollectives, AreMatchedByTheirNumberPerLaneAndMask) {
  trace_builder b;
  b.warp_collective(lane0, 0x3);  // #0
  b.warp_collective(lane1, 0x3);  // #0
  const auto a = b.write(lane0, 0, 8);
  b.warp_collective(lane0, 0x3);          // #1: lane 0 releases a
  const auto early = b.write(lane1, 8, 8);  // lane 1 has not reached #1
  b.warp_collective(lane1, 0x3);
  const auto late = b.write(lane1, 16, 8);
  const auto o = order_of(b.trace(), persist_model::sbrp);
  EXPECT_FALSE(persists_before(o, a, early));
  EXPECT_TRUE(persists_before(o, a, late));
}

TEST(WarpCollectives, AreCrashPoints) {
  trace_builder b;
  b.write(lane0, 0, 8);
  const auto w = b.warp_collective(lane0, 0x1);
  const std::vector<std::uint64_t> points = ordering_crash_points(b.trace());
  EXPECT_NE(std::find(points.begin(), points.end(), w), points.end());
}

}  // namespace
