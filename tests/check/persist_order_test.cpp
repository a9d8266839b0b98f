// The persist order built rule by rule from small hand-written traces with
// known answers (docs/persistency-models.md, section 2).
#include <gtest/gtest.h>

#include "check/trace_builder.hpp"

namespace {
using namespace check_test;
using gpmx::check::persist_model;
using gpmx::check::check_error;

constexpr who t0{0, 0, 0}, t1{0, 0, 1}, other_block{0, 1, 0};
constexpr persist_model weak_models[] = {persist_model::epoch, persist_model::sbrp, persist_model::sbrp_promoted};

TEST(PersistOrder, ProgramOrderAloneOrdersNothingExceptUnderStrict) {
  trace_builder b;
  b.kernel_begin();
  const auto a = b.write(t0, 0, 8), c = b.write(t0, 8, 8);
  for (persist_model m : weak_models) {
    const auto o = order_of(b.trace(), m);
    EXPECT_FALSE(persists_before(o, a, c)) << to_string(m);
    EXPECT_FALSE(persists_before(o, c, a)) << to_string(m);
  }
  EXPECT_TRUE(persists_before(order_of(b.trace(), persist_model::strict), a, c));
}

TEST(PersistOrder, GpmPersistOrdersAThreadsEarlierStoresBeforeItsLaterOnes) {
  trace_builder b;
  const auto a = b.write(t0, 0, 8);
  b.persist(t0);
  const auto c = b.write(t0, 8, 8);
  for (persist_model m : weak_models) EXPECT_TRUE(persists_before(order_of(b.trace(), m), a, c)) << to_string(m);
}

TEST(PersistOrder, OfenceOrdersUnderSbrpButNotUnderEpoch) {
  trace_builder b;
  const auto a = b.write(t0, 0, 8);
  b.ofence(t0);
  const auto c = b.write(t0, 8, 8);
  EXPECT_TRUE(persists_before(order_of(b.trace(), persist_model::sbrp), a, c));
  EXPECT_TRUE(persists_before(order_of(b.trace(), persist_model::sbrp_promoted), a, c));
  EXPECT_FALSE(persists_before(order_of(b.trace(), persist_model::epoch), a, c));
}

TEST(PersistOrder, DfenceAndKernelEndAreDurabilityPointsOfferenceIsNot) {
  trace_builder b;
  b.kernel_begin();
  const auto a = b.write(t0, 0, 8);
  const auto df = b.dfence(t0);
  const auto c = b.write(t0, 8, 8);
  b.ofence(t0);
  const auto p = b.write(t1, 16, 8);
  const auto persist = b.persist(t1);
  const auto ke = b.kernel_end();
  for (persist_model m : weak_models) {
    const auto o = order_of(b.trace(), m);
    EXPECT_EQ(o.durable_at(o.nodes_of(a).first), df) << to_string(m);
    EXPECT_EQ(o.durable_at(o.nodes_of(c).first), ke) << to_string(m);
    EXPECT_EQ(o.durable_at(o.nodes_of(p).first), persist) << to_string(m);
  }
}

TEST(PersistOrder, WithoutKernelEndAnUnfencedStoreIsNeverMadeDurable) {
  trace_builder b;
  b.kernel_begin();
  const auto a = b.write(t0, 0, 8);
  const auto o = order_of(b.trace(), persist_model::sbrp);
  EXPECT_EQ(o.durable_at(o.nodes_of(a).first), gpmx::check::never);
}

// t0 stores then releases; the acquirer reads from it and stores.
struct release_acquire {
  std::uint64_t stored, loaded_after;
  gpmx::trace::trace t;
};
release_acquire released_to(who acquirer, scope rel_scope, scope acq_scope, bool persist_first = false) {
  trace_builder b;
  b.kernel_begin();
  release_acquire r{};
  r.stored = b.write(t0, 0, 8);
  if (persist_first) b.persist(t0);
  const auto rel = b.prel(t0, rel_scope, 0x100);
  b.pacq(acquirer, acq_scope, 0x100, rel);
  r.loaded_after = b.write(acquirer, 64, 8);
  r.t = b.trace();
  return r;
}

TEST(PersistOrder, BlockScopedReleaseAcquireOrdersWithinABlock) {
  const auto r = released_to(t1, scope::block, scope::block);
  EXPECT_TRUE(persists_before(order_of(r.t, persist_model::sbrp), r.stored, r.loaded_after));
  EXPECT_FALSE(persists_before(order_of(r.t, persist_model::epoch), r.stored, r.loaded_after))
      << "epoch orders through release/acquire only what a durability point made durable";
  const auto p = released_to(t1, scope::block, scope::block, true);
  EXPECT_TRUE(persists_before(order_of(p.t, persist_model::epoch), p.stored, p.loaded_after));
}

TEST(PersistOrder, BlockScopedReleaseAcquireDoesNotOrderAcrossBlocks) {
  for (auto [rel, acq] : {std::pair{scope::block, scope::device}, std::pair{scope::device, scope::block},
                          std::pair{scope::block, scope::block}}) {
    const auto r = released_to(other_block, rel, acq);
    EXPECT_FALSE(persists_before(order_of(r.t, persist_model::sbrp), r.stored, r.loaded_after));
    EXPECT_TRUE(persists_before(order_of(r.t, persist_model::sbrp_promoted), r.stored, r.loaded_after));
    const auto p = released_to(other_block, rel, acq, true);
    EXPECT_FALSE(persists_before(order_of(p.t, persist_model::epoch), p.stored, p.loaded_after));
  }
  const auto d = released_to(other_block, scope::device, scope::system);
  EXPECT_TRUE(persists_before(order_of(d.t, persist_model::sbrp), d.stored, d.loaded_after));
}

TEST(PersistOrder, AnAcquireWithoutReadsFromOrdersNothing) {
  trace_builder b;
  const auto a = b.write(t0, 0, 8);
  b.prel(t0, scope::device, 0x100);
  b.pacq(t1, scope::device, 0x100, gpmx::trace::no_event);
  const auto c = b.write(t1, 64, 8);
  EXPECT_FALSE(persists_before(order_of(b.trace(), persist_model::sbrp), a, c));
}

TEST(PersistOrder, ReleaseIsCumulativeOverWhatItsThreadAcquired) {
  trace_builder b;
  const who t2{0, 0, 2};
  const auto a = b.write(t0, 0, 8);
  const auto r1 = b.prel(t0, scope::device, 0x100);
  b.pacq(t1, scope::device, 0x100, r1);
  const auto r2 = b.prel(t1, scope::device, 0x108);
  b.pacq(t2, scope::device, 0x108, r2);
  const auto c = b.write(t2, 64, 8);
  EXPECT_TRUE(persists_before(order_of(b.trace(), persist_model::sbrp), a, c));
}

TEST(PersistOrder, StoresAfterAReleaseAreNotOrderedAfterTheStoresBeforeIt) {
  trace_builder b;
  const auto a = b.write(t0, 0, 8);
  b.prel(t0, scope::device, 0x100);
  const auto c = b.write(t0, 8, 8);
  EXPECT_FALSE(persists_before(order_of(b.trace(), persist_model::sbrp), a, c));
}

TEST(PersistOrder, BarrierOrdersOtherThreadsStoresBeforeUnderSbrp) {
  trace_builder b;
  const auto a = b.write(t0, 0, 8);
  b.barrier(t0);
  b.barrier(t1);
  const auto c = b.write(t1, 8, 8);
  const auto own = b.write(t0, 16, 8);
  const auto o = order_of(b.trace(), persist_model::sbrp);
  EXPECT_TRUE(persists_before(o, a, c));
  // B(k) acquires every *other* thread's release: a thread's own stores
  // across its barrier stay unordered (as ppo has no Rel ppo W).
  EXPECT_FALSE(persists_before(o, a, own));
  EXPECT_FALSE(persists_before(order_of(b.trace(), persist_model::epoch), a, c));
}

TEST(PersistOrder, BarrierCarriesDurabilityUnderEpoch) {
  trace_builder b;
  const auto a = b.write(t0, 0, 8);
  b.persist(t0);
  b.barrier(t0);
  b.barrier(t1);
  const auto c = b.write(t1, 8, 8);
  EXPECT_TRUE(persists_before(order_of(b.trace(), persist_model::epoch), a, c));
}

TEST(PersistOrder, BarriersAreMatchedByTheirNumberInEachThread) {
  trace_builder b;
  b.barrier(t0);  // B(0)
  b.barrier(t1);  // B(0)
  const auto a = b.write(t0, 0, 8);
  b.barrier(t0);  // B(1): t0 releases a
  const auto early = b.write(t1, 8, 8);  // t1 has not reached B(1)
  b.barrier(t1);
  const auto late = b.write(t1, 16, 8);
  const auto o = order_of(b.trace(), persist_model::sbrp);
  EXPECT_FALSE(persists_before(o, a, early));
  EXPECT_TRUE(persists_before(o, a, late));
}

TEST(PersistOrder, BarriersOfDifferentBlocksDoNotSynchronise) {
  trace_builder b;
  const auto a = b.write(t0, 0, 8);
  b.barrier(t0);
  b.barrier(other_block);
  const auto c = b.write(other_block, 8, 8);
  EXPECT_FALSE(persists_before(order_of(b.trace(), persist_model::sbrp_promoted), a, c));
}

TEST(PersistOrder, KernelEndOrdersAKernelsStoresBeforeLaterLaunches) {
  trace_builder b;
  b.kernel_begin(0);
  const auto a = b.write(t0, 0, 8);
  b.kernel_end(0);
  b.kernel_begin(1);
  const auto c = b.write({1, 0, 0}, 8, 8);
  for (persist_model m : weak_models) EXPECT_TRUE(persists_before(order_of(b.trace(), m), a, c)) << to_string(m);
}

TEST(PersistOrder, CoherenceOrdersStoresToACommonGranule) {
  trace_builder b;
  const auto a = b.write(t0, 0, 4);
  const auto c = b.write(other_block, 4, 4);  // same 8-byte granule, different 4-byte ones
  for (persist_model m : weak_models) {
    EXPECT_TRUE(persists_before(order_of(b.trace(), m, 8), a, c)) << to_string(m);
    EXPECT_FALSE(persists_before(order_of(b.trace(), m, 4), a, c)) << to_string(m);
    EXPECT_FALSE(persists_before(order_of(b.trace(), m, 8), c, a)) << to_string(m);
  }
}

TEST(PersistOrder, CoherenceOrdersOnlyTheCommonGranuleOfAWideStore) {
  trace_builder b;
  const auto wide = b.write(t0, 0, 16);
  const auto c = b.write(t1, 8, 8);
  const auto o = order_of(b.trace(), persist_model::sbrp);
  const auto [w0, w1] = o.nodes_of(wide);
  ASSERT_EQ(w1 - w0, 2u);
  const std::size_t cn = o.nodes_of(c).first;
  EXPECT_TRUE(o.ordered(w0 + 1, cn));
  EXPECT_FALSE(o.ordered(w0, cn));
}

TEST(PersistOrder, StoresTearAtTheGranularity) {
  trace_builder b;
  const auto aligned = b.write(t0, 64, 16);
  const auto unaligned = b.write(t0, 126, 4);  // crosses 128
  for (auto [g, aligned_parts, unaligned_parts] :
       {std::tuple{4u, 4u, 2u}, std::tuple{8u, 2u, 2u}, std::tuple{64u, 1u, 2u}}) {
    const auto o = order_of(b.trace(), persist_model::sbrp, g);
    const auto [a0, a1] = o.nodes_of(aligned);
    EXPECT_EQ(a1 - a0, aligned_parts) << g;
    const auto [u0, u1] = o.nodes_of(unaligned);
    EXPECT_EQ(u1 - u0, unaligned_parts) << g;
    EXPECT_EQ(o.node(u0).first, 126u);
    EXPECT_EQ(o.node(u0).end, 128u);
    EXPECT_FALSE(o.ordered(a0, a1 - 1) && a1 - a0 > 1) << "a store's granules persist independently";
  }
}

TEST(PersistOrder, StrictIsTheTotalOrderOfStores) {
  trace_builder b;
  const auto a = b.write(t0, 0, 8);
  const auto c = b.write(other_block, 64, 8);
  const auto d = b.write(t1, 128, 8);
  const auto o = order_of(b.trace(), persist_model::strict);
  EXPECT_TRUE(persists_before(o, a, c));
  EXPECT_TRUE(persists_before(o, c, d));
  for (std::size_t id = 0; id < o.size(); ++id) EXPECT_EQ(o.durable_at(id), o.node(id).event);
}

TEST(PersistOrder, RejectsBadOptionsAndTracesByName) {
  trace_builder b;
  b.write(t0, 0, 64);
  EXPECT_THROW(order_of(b.trace(), persist_model::sbrp, 3), check_error);
  EXPECT_THROW(gpmx::check::parse_model("release"), check_error);
  EXPECT_EQ(gpmx::check::parse_model("sbrp-promoted"), persist_model::sbrp_promoted);
  try {
    gpmx::check::persist_order(b.trace(), {.model = persist_model::sbrp, .granularity = 8, .max_granule_stores = 4});
    FAIL();
  } catch (const check_error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 4 granule-stores"), std::string::npos) << e.what();
  }
  trace_builder bad;
  bad.pacq(t0, scope::device, 0x100, 0);  // reads from itself: no prel
  EXPECT_THROW(order_of(bad.trace(), persist_model::sbrp), check_error);
}

}  // namespace
