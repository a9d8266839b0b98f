// The host thread's rules (docs/persistency-models.md): H(x, n) makes the
// host's earlier stores to the range durable; durable host stores are
// ordered before the stores of later launches, and a kernel's end before
// the host's later stores.
#include <gtest/gtest.h>

#include "gpmx/check/crash_point.hpp"
#include "trace_builder.hpp"

namespace {

using namespace check_test;
using gpmx::check::persist_model;

const persist_model all_models[] = {persist_model::epoch, persist_model::sbrp, persist_model::sbrp_promoted};

TEST(HostOrder, HostPersistMakesTheHostsEarlierStoresToItsRangeDurable) {
  trace_builder b;
  const auto in = b.host_write(0x1000, 8);
  const auto out = b.host_write(0x2000, 8);
  const auto h = b.host_persist(0x1000, 64);
  const auto later = b.host_write(0x1008, 8);
  for (persist_model m : all_models) {
    const auto o = order_of(b.trace(), m);
    EXPECT_EQ(o.durable_at(o.nodes_of(in).first), h) << to_string(m);
    EXPECT_EQ(o.durable_at(o.nodes_of(out).first), gpmx::check::never) << to_string(m);
    EXPECT_EQ(o.durable_at(o.nodes_of(later).first), gpmx::check::never) << to_string(m);
    EXPECT_TRUE(persists_before(o, in, later)) << to_string(m);   // rule E: H is before the later store
    EXPECT_FALSE(persists_before(o, out, later)) << to_string(m);  // outside the range: unordered
  }
}

TEST(HostOrder, AHostPersistCoversOnlyTheWholeGranulesItsRangeHolds) {
  trace_builder b;
  const auto w = b.host_write(0x1000, 16);
  b.host_persist(0x1000, 8);
  const auto o = order_of(b.trace(), persist_model::epoch);
  const auto [first, end] = o.nodes_of(w);
  ASSERT_EQ(end - first, 2u);
  EXPECT_NE(o.durable_at(first), gpmx::check::never);
  EXPECT_EQ(o.durable_at(first + 1), gpmx::check::never);
}

TEST(HostOrder, DurableHostStoresPersistBeforeTheStoresOfLaterLaunches) {
  trace_builder b;
  const auto persisted = b.host_write(0x1000, 8);
  const auto unpersisted = b.host_write(0x2000, 8);
  b.host_persist(0x1000, 8);
  b.kernel_begin(0);
  const auto k = b.write({0, 0, 0}, 0x3000, 8);
  b.kernel_end(0);
  for (persist_model m : all_models) {
    const auto o = order_of(b.trace(), m);
    EXPECT_TRUE(persists_before(o, persisted, k)) << to_string(m);
    EXPECT_FALSE(persists_before(o, unpersisted, k)) << to_string(m);
  }
}

TEST(HostOrder, AKernelsEndPersistsItsStoresBeforeTheHostsLaterStores) {
  trace_builder b;
  b.kernel_begin(0);
  const auto k = b.write({0, 1, 3}, 0x3000, 8);
  b.kernel_end(0);
  const auto flip = b.host_write(0x1000, 8);
  b.host_persist(0x1000, 8);
  for (persist_model m : all_models) EXPECT_TRUE(persists_before(order_of(b.trace(), m), k, flip)) << to_string(m);
}

TEST(HostOrder, AHostStoreBeforeALaunchIsNotOrderedBeforeItsStoresWithoutAPersist) {
  // The checkpoint-flip shape: the flag is stored before the kernel that
  // writes the data, and persisted only after it; a crash inside the kernel
  // may keep kernel stores without the flag and vice versa.
  trace_builder b;
  const auto flag = b.host_write(0x1000, 8);
  b.kernel_begin(0);
  const auto data = b.write({0, 0, 0}, 0x3000, 8);
  const auto crash = b.kernel_end(0);
  b.host_persist(0x1000, 8);
  const auto o = order_of(b.trace(), persist_model::epoch);
  EXPECT_FALSE(persists_before(o, flag, data));
  const auto at = gpmx::check::crash_state_at(o, crash);
  EXPECT_TRUE(at.may.contains(o.nodes_of(flag).first));
  EXPECT_TRUE(at.may.contains(o.nodes_of(data).first));
}

TEST(HostOrder, HostPersistsAreCrashPoints) {
  trace_builder b;
  b.host_write(0x1000, 8);
  const auto h = b.host_persist(0x1000, 8);
  const auto points = gpmx::check::ordering_crash_points(b.trace());
  EXPECT_NE(std::find(points.begin(), points.end(), h), points.end());
}

TEST(HostOrder, StrictMakesEveryHostStoreDurableAtOnce) {
  trace_builder b;
  const auto w = b.host_write(0x1000, 8);
  const auto o = order_of(b.trace(), persist_model::strict);
  EXPECT_EQ(o.durable_at(o.nodes_of(w).first), w);
}

}  // namespace
