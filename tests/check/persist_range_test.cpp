// Rule PR (docs/persistency-models.md): a kernel thread's persist_range makes
// every store to the range issued before it durable, whoever stored it, and
// orders only what the persisting thread does afterwards.
#include <gtest/gtest.h>

#include "check/trace_builder.hpp"
#include "gpmx/check/crash_point.hpp"

namespace {
using namespace check_test;
using gpmx::check::never;
using gpmx::check::persist_model;

constexpr who t0{0, 0, 0}, t1{0, 0, 1}, drainer{0, 1, 5};
constexpr persist_model weak_models[] = {persist_model::epoch, persist_model::sbrp, persist_model::sbrp_promoted};

std::uint64_t durable_at(const gpmx::check::persist_order& o, std::uint64_t event) {
  return o.durable_at(o.nodes_of(event).first);
}

TEST(PersistRange, MakesOtherThreadsEarlierStoresInTheRangeDurable) {
  trace_builder b;
  b.kernel_begin();
  const auto a = b.write(t0, 0, 8), c = b.write(t1, 8, 8), outside = b.write(t1, 64, 8);
  const auto r = b.persist_range(drainer, 0, 16);
  for (persist_model m : weak_models) {
    const auto o = order_of(b.trace(), m);
    EXPECT_EQ(durable_at(o, a), r) << to_string(m);
    EXPECT_EQ(durable_at(o, c), r) << to_string(m);
    EXPECT_EQ(durable_at(o, outside), never) << to_string(m);
  }
}

TEST(PersistRange, DoesNotCoverStoresIssuedAfterItOrOnlyPartlyInside) {
  trace_builder b;
  b.kernel_begin();
  const auto straddles = b.write(t0, 8, 16);  // granules [8,16) inside, [16,24) outside
  b.persist_range(drainer, 0, 16);
  const auto later = b.write(t1, 0, 8);
  for (persist_model m : weak_models) {
    const auto o = order_of(b.trace(), m);
    const auto [first, end] = o.nodes_of(straddles);
    ASSERT_EQ(end - first, 2u);
    EXPECT_NE(o.durable_at(first), never) << to_string(m);
    EXPECT_EQ(o.durable_at(first + 1), never) << to_string(m);
    EXPECT_EQ(durable_at(o, later), never) << to_string(m);
  }
}

TEST(PersistRange, OrdersThePersistingThreadsLaterStoresAfterWhatItCovered) {
  // The drainer persists the committers' records, then writes its commit
  // mark: the mark may not persist before the records.
  trace_builder b;
  b.kernel_begin();
  const auto record = b.write(t0, 0, 8);
  b.persist_range(drainer, 0, 8);
  const auto mark = b.write(drainer, 256, 8);
  for (persist_model m : weak_models) EXPECT_TRUE(persists_before(order_of(b.trace(), m), record, mark)) << to_string(m);
}

TEST(PersistRange, InventsNoOrderForOtherThreadsOrForStoresOutsideTheRange) {
  trace_builder b;
  b.kernel_begin();
  const auto outside = b.write(drainer, 512, 8);  // the drainer's own store, not in the range
  const auto record = b.write(t0, 0, 8);
  b.persist_range(drainer, 0, 8);
  const auto t0_later = b.write(t0, 64, 8);       // t0 never synchronized with the drainer
  const auto mark = b.write(drainer, 256, 8);
  for (persist_model m : weak_models) {
    const auto o = order_of(b.trace(), m);
    EXPECT_FALSE(persists_before(o, record, t0_later)) << to_string(m);
    EXPECT_FALSE(persists_before(o, outside, mark)) << to_string(m);
    EXPECT_EQ(durable_at(o, outside), never) << to_string(m);
  }
}

TEST(PersistRange, CrashImagesAfterItMustHoldTheCoveredStores) {
  trace_builder b;
  b.kernel_begin();
  const auto a = b.write(t0, 0, 8);
  const auto r = b.persist_range(drainer, 0, 8);
  b.write(t1, 64, 8);
  const auto o = order_of(b.trace(), persist_model::sbrp);
  const auto states = gpmx::check::crash_states(o, {r, r + 1});
  EXPECT_FALSE(states[0].must.contains(o.nodes_of(a).first));  // before R returns: may, not must
  EXPECT_TRUE(states[1].must.contains(o.nodes_of(a).first));
}

TEST(PersistRange, AgentStepsOrderNothing) {
  trace_builder b;
  b.kernel_begin();
  const auto a = b.write(t0, 0, 8);
  b.agent_step();
  const auto c = b.write(t0, 8, 8);
  for (persist_model m : weak_models) {
    const auto o = order_of(b.trace(), m);
    EXPECT_FALSE(persists_before(o, a, c)) << to_string(m);
    EXPECT_EQ(durable_at(o, a), never) << to_string(m);
  }
}

}  // namespace
