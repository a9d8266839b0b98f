// check_durable_order: hand-written traces and durable times with known
// answers (docs/sim-persistency.md, "The hardware against the model").
#include <gtest/gtest.h>

#include <map>

#include "check/trace_builder.hpp"
#include "gpmx/check/durable_order.hpp"

namespace {
using namespace check_test;
using gpmx::check::check_durable_order;
using gpmx::check::never;
using gpmx::check::persist_model;

constexpr who t0{0, 0, 0}, t1{0, 0, 1};

// Durable times by kernel store index (one time for all its bytes).
gpmx::check::durable_time_fn times(std::map<std::size_t, std::uint64_t> by_store) {
  return [by_store](std::size_t k, std::uint64_t) { return by_store.at(k); };
}

TEST(DurableOrder, AStoreDurableBeforeOneItsFenceOrdersAheadOfItIsAViolation) {
  trace_builder b;
  b.kernel_begin();
  b.write(t0, 0, 8);  // kernel store 0
  b.persist(t0);
  b.write(t0, 64, 8);  // kernel store 1: ordered after store 0 under both models
  b.kernel_end();
  for (persist_model m : {persist_model::epoch, persist_model::sbrp}) {
    const auto o = order_of(b.trace(), m);
    const auto in_order = check_durable_order(b.trace(), o, times({{0, 100}, {1, 200}}));
    EXPECT_EQ(in_order.kernel_stores, 2u);
    EXPECT_EQ(in_order.violations, 0u);
    const auto together = check_durable_order(b.trace(), o, times({{0, 100}, {1, 100}}));
    EXPECT_EQ(together.violations, 0u) << "durable no later is allowed";
    const auto reversed = check_durable_order(b.trace(), o, times({{0, 200}, {1, 100}}));
    ASSERT_EQ(reversed.violations, 1u);
    EXPECT_EQ(reversed.first.at(0).store_durable, 100u);
    EXPECT_EQ(reversed.first.at(0).predecessor_durable, 200u);
    const auto lost = check_durable_order(b.trace(), o, times({{0, never}, {1, 100}}));
    EXPECT_EQ(lost.violations, 1u) << "a predecessor never durable";
    EXPECT_EQ(lost.durable, 1u);
    const auto both_lost = check_durable_order(b.trace(), o, times({{0, never}, {1, never}}));
    EXPECT_EQ(both_lost.violations, 0u) << "a store never durable constrains nothing";
  }
}

TEST(DurableOrder, StoresTheModelLeavesUnorderedMayBecomeDurableEitherWay) {
  trace_builder b;
  b.kernel_begin();
  b.write(t0, 0, 8);
  b.ofence(t0);  // orders under sbrp only
  b.write(t0, 64, 8);
  b.write(t1, 128, 8);  // another thread, no synchronization
  b.kernel_end();
  const auto epoch = order_of(b.trace(), persist_model::epoch);
  EXPECT_EQ(check_durable_order(b.trace(), epoch, times({{0, 300}, {1, 100}, {2, 50}})).violations, 0u);
  const auto sbrp = order_of(b.trace(), persist_model::sbrp);
  EXPECT_EQ(check_durable_order(b.trace(), sbrp, times({{0, 300}, {1, 100}, {2, 50}})).violations, 1u);
  EXPECT_EQ(check_durable_order(b.trace(), sbrp, times({{0, 100}, {1, 300}, {2, 50}})).violations, 0u);
}

TEST(DurableOrder, HostStoresAreNotCountedAsKernelStores) {
  trace_builder b;
  b.host_write(0, 8);
  b.host_persist(0, 8);
  b.kernel_begin();
  b.write(t0, 64, 8);
  b.kernel_end();
  const auto o = order_of(b.trace(), persist_model::epoch);
  std::size_t asked = 0;
  const auto r = check_durable_order(b.trace(), o, [&](std::size_t k, std::uint64_t address) {
    ++asked;
    EXPECT_EQ(k, 0u);
    EXPECT_EQ(address, 64u);
    return std::uint64_t(10);
  });
  EXPECT_EQ(r.kernel_stores, 1u);
  EXPECT_EQ(asked, 1u);
}

}  // namespace
