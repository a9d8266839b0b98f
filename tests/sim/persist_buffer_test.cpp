// SBRP's persist buffer alone, over a memory whose every write is durable a
// fixed 1000 ps after it is sent: when each persist is written follows from
// the paper's rules (section 6) by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpmx/sim/persist_buffer.hpp"

namespace {
using namespace gpmx::sim;

constexpr picos ack_delay = 1000;

struct recording_memory final : pb_memory {
  struct write {
    std::uint64_t line;
    std::uint32_t sectors;
    picos at;
  };
  picos write_back(std::uint64_t line, std::uint32_t sectors, picos at) override {
    writes.push_back({line, sectors, at});
    return at + ack_delay;
  }
  std::vector<write> writes;
  picos written_at(std::uint64_t line, std::size_t nth = 0) const {
    for (const auto& w : writes)
      if (w.line == line && nth-- == 0) return w.at;
    return ~picos(0);
  }
};

constexpr std::uint64_t A = 0x1000, B = 0x1080, C = 0x1100, D = 0x1180, X = 0x2000;
constexpr warp_mask w0 = 1, w1 = 2;

TEST(PersistBuffer, LazyHoldsPersistsUntilAnOrderingPointAndMergesStoresToALine) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::lazy, 6);
  EXPECT_TRUE(pb.store(A, 0x1, 0, 0, m));
  EXPECT_TRUE(pb.store(B, 0x1, 1, 5, m));
  EXPECT_TRUE(pb.store(A, 0x2, 1, 7, m));  // another warp, no ordering between: merged
  EXPECT_TRUE(m.writes.empty());
  EXPECT_EQ(pb.size(), 2u);
  EXPECT_EQ(pb.stats().coalesced, 1u);
  pb.order(w0, 10, m);  // everything before it goes now
  ASSERT_EQ(m.writes.size(), 2u);
  EXPECT_EQ(m.writes[0].line, A);
  EXPECT_EQ(m.writes[0].sectors, 0x3u);
  EXPECT_EQ(m.writes[0].at, 10u);
  EXPECT_EQ(m.writes[1].line, B);
  EXPECT_EQ(pb.size(), 0u);
  EXPECT_EQ(pb.fsm(), w0);
  EXPECT_EQ(pb.in_flight(10), 2u);
  EXPECT_EQ(pb.in_flight(10 + ack_delay), 0u);
  EXPECT_EQ(pb.fsm(), 0u) << "ACTR at zero resets the FSM";
}

TEST(PersistBuffer, TheWindowKeepsThatManyPersistsInFlight) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::window, 2);
  for (std::uint64_t line : {A, B, C, D}) EXPECT_TRUE(pb.store(line, 0x1, 0, 0, m));
  ASSERT_EQ(m.writes.size(), 2u);
  EXPECT_EQ(pb.next_event(), ack_delay);
  pb.advance(ack_delay, m);
  ASSERT_EQ(m.writes.size(), 4u);
  EXPECT_EQ(m.written_at(C), ack_delay);
  EXPECT_EQ(m.written_at(D), ack_delay);
}

TEST(PersistBuffer, EagerWritesEveryPersistAtOnce) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::eager, 2);
  for (std::uint64_t line : {A, B, C, D}) EXPECT_TRUE(pb.store(line, 0x1, 0, 3, m));
  ASSERT_EQ(m.writes.size(), 4u);
  for (const auto& w : m.writes) EXPECT_EQ(w.at, 3u);
}

TEST(PersistBuffer, AfterAnOFenceOnlyThatWarpsPersistsWaitForTheEarlierOnes) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::window, 6);
  EXPECT_TRUE(pb.store(A, 0x1, 0, 0, m));  // written at 0, durable at 1000
  pb.order(w0, 10, m);                      // at the head at once: FSM = {warp 0}
  EXPECT_EQ(pb.fsm(), w0);
  EXPECT_TRUE(pb.store(D, 0x1, 1, 20, m));  // warp 1 is not ordered: goes now
  EXPECT_EQ(m.written_at(D), 20u);
  EXPECT_TRUE(pb.store(B, 0x1, 0, 30, m));  // warp 0: waits until ACTR is zero
  EXPECT_EQ(m.written_at(B), ~picos(0));
  EXPECT_EQ(pb.stats().fsm_waits, 1u);
  pb.advance(ack_delay, m);  // A acknowledged, D not yet
  EXPECT_EQ(m.written_at(B), ~picos(0));
  EXPECT_EQ(pb.next_event(), 20 + ack_delay);
  pb.advance(20 + ack_delay, m);
  EXPECT_EQ(m.written_at(B), 20 + ack_delay);
}

TEST(PersistBuffer, APersistTheFSMHoldsAtTheHeadHoldsWhatIsBehindIt) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::window, 6);
  EXPECT_TRUE(pb.store(A, 0x1, 0, 0, m));
  pb.order(w0, 10, m);
  EXPECT_TRUE(pb.store(B, 0x1, 0, 20, m));  // the head now, held by the FSM
  EXPECT_TRUE(pb.store(C, 0x1, 1, 30, m));  // behind it, another warp's: FIFO order
  EXPECT_EQ(m.written_at(B), ~picos(0));
  EXPECT_EQ(m.written_at(C), ~picos(0));
  pb.order(w1, 40, m);
  EXPECT_TRUE(pb.store(D, 0x1, 1, 50, m));
  pb.advance(ack_delay, m);  // ACTR zero: B and C go; warp 1's ordering point reaches the head
  EXPECT_EQ(m.written_at(B), ack_delay);
  EXPECT_EQ(m.written_at(C), ack_delay);
  EXPECT_EQ(m.written_at(D), ~picos(0)) << "D follows warp 1's ordering point: it waits for C";
  EXPECT_EQ(pb.next_event(), 2 * ack_delay);
  pb.advance(2 * ack_delay, m);
  EXPECT_EQ(m.written_at(D), 2 * ack_delay);
}

TEST(PersistBuffer, AWarpsOrderingPointMergesIntoTheLatestOneWhenNothingOfItsFollows) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::window, 1);
  EXPECT_TRUE(pb.store(X, 0x1, 1, 0, m));  // in flight: the window is full, what follows stays buffered
  EXPECT_TRUE(pb.store(A, 0x1, 0, 0, m));
  pb.order(w0, 1, m);
  EXPECT_TRUE(pb.store(B, 0x1, 1, 2, m));  // another warp's persist after the point
  pb.order(w0, 3, m);                      // again, nothing of warp 0 since: the same point (a spin on pAcq)
  pb.order(w0, 4, m);
  EXPECT_EQ(pb.stats().merged_points, 2u);
  EXPECT_TRUE(pb.store(C, 0x1, 0, 5, m));
  pb.order(w0, 6, m);                      // warp 0 stored since: a point of its own
  EXPECT_EQ(pb.stats().ordering_entries + pb.stats().merged_points, 4u);
  EXPECT_EQ(pb.stats().merged_points, 2u);
}

TEST(PersistBuffer, AStoreToALineBufferedBeforeTheWarpsOrderingPointWaitsForItToPersist) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::window, 1);
  EXPECT_TRUE(pb.store(X, 0x1, 1, 0, m));  // fills the window until 1000
  EXPECT_TRUE(pb.store(A, 0x1, 0, 5, m));  // buffered
  pb.order(w0, 10, m);
  EXPECT_FALSE(pb.store(A, 0x2, 0, 20, m)) << "merging would persist it before the ofence's earlier persists";
  EXPECT_EQ(pb.stats().order_stalls, 1u);
  EXPECT_TRUE(pb.store(A, 0x4, 1, 25, m)) << "another warp is not ordered by warp 0's ofence";
  pb.advance(ack_delay, m);  // X durable: A (with warp 1's sectors) goes
  EXPECT_EQ(m.written_at(A), ack_delay);
  EXPECT_TRUE(pb.ready_wakes().empty());
  EXPECT_EQ(pb.next_event(), 2 * ack_delay);
  pb.advance(2 * ack_delay, m);  // A durable: the held store goes in, the warp goes on
  ASSERT_EQ(pb.ready_wakes().size(), 1u);
  EXPECT_EQ(pb.ready_wakes()[0].warp, 0u);
  EXPECT_EQ(pb.ready_wakes()[0].at, 2 * ack_delay);
  EXPECT_EQ(m.written_at(A, 1), 2 * ack_delay) << "the held store is a persist of its own";
  EXPECT_EQ(m.writes.back().sectors, 0x2u);
}

TEST(PersistBuffer, ADFenceReleasesItsWarpWhenEveryEarlierPersistIsDurable) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::window, 6);
  EXPECT_TRUE(pb.store(A, 0x1, 0, 0, m));
  EXPECT_TRUE(pb.store(B, 0x1, 1, 400, m));  // another warp's: the dFence waits for it too
  pb.durable(0, 10 + 400, m);
  EXPECT_TRUE(pb.ready_wakes().empty());
  EXPECT_EQ(pb.next_event(), 400 + ack_delay);
  pb.advance(400 + ack_delay, m);
  ASSERT_EQ(pb.ready_wakes().size(), 1u);
  EXPECT_EQ(pb.ready_wakes()[0].at, 400 + ack_delay);
}

TEST(PersistBuffer, AFullBufferHoldsTheStoreUntilAnEntryLeaves) {
  recording_memory m;
  persist_buffer pb(2, flush_policy::window, 1);
  EXPECT_TRUE(pb.store(X, 0x1, 1, 0, m));  // written: the window (1) is full until 1000
  EXPECT_TRUE(pb.store(A, 0x1, 0, 1, m));
  EXPECT_TRUE(pb.store(B, 0x1, 0, 2, m));
  EXPECT_EQ(pb.size(), 2u);
  EXPECT_FALSE(pb.store(C, 0x1, 0, 3, m));
  EXPECT_EQ(pb.stats().full_stalls, 1u);
  pb.advance(ack_delay, m);  // A goes, its entry frees, C takes it
  ASSERT_EQ(pb.ready_wakes().size(), 1u);
  EXPECT_EQ(pb.ready_wakes()[0].at, ack_delay);
  EXPECT_EQ(pb.size(), 2u);
}

// SBRP's simulator flushes past its window when a store finds the buffer
// full (persist.full_past_window): the store waits only for its entry.
TEST(PersistBuffer, WithFullPastWindowAWaitingStoreSendsOnePersistPastTheWindow) {
  recording_memory m;
  persist_buffer pb(2, flush_policy::window, 1, true);
  EXPECT_TRUE(pb.store(X, 0x1, 1, 0, m));  // written: the window (1) is full until 1000
  EXPECT_TRUE(pb.store(A, 0x1, 0, 1, m));
  EXPECT_TRUE(pb.store(B, 0x1, 0, 2, m));
  EXPECT_EQ(m.writes.size(), 1u);  // the window holds while nothing waits
  EXPECT_FALSE(pb.store(C, 0x1, 0, 3, m));  // full: A goes past the window, C takes its entry at once
  pb.advance(3, m);
  ASSERT_EQ(pb.ready_wakes().size(), 1u);
  EXPECT_EQ(pb.ready_wakes()[0].at, 3u);
  EXPECT_EQ(m.written_at(A), 3u);
  EXPECT_EQ(m.written_at(B), ~picos(0));  // one past the window per waiting store, not more
  EXPECT_EQ(pb.stats().full_stalls, 1u);
  EXPECT_EQ(pb.size(), 2u);
}

TEST(PersistBuffer, AnEvictionBehindAnOrderingEntryWaitsForTheEntriesBeforeIt) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::lazy, 6);
  EXPECT_TRUE(pb.store(A, 0x1, 0, 0, m));
  EXPECT_EQ(pb.evicting(A, 5, m), 5u) << "nothing orders A: it may leave at once";
  pb.evicted(A, 5, 5 + ack_delay, m);
  EXPECT_EQ(pb.size(), 0u);
  EXPECT_EQ(pb.in_flight(5), 1u);

  persist_buffer lazy(256, flush_policy::lazy, 6);
  recording_memory m2;
  EXPECT_TRUE(lazy.store(B, 0x1, 0, 0, m2));
  EXPECT_TRUE(lazy.store(C, 0x1, 1, 0, m2));
  // An ordering point makes the lazy buffer write B and C now; then D
  // comes behind another ordering point of warp 0.
  lazy.order(w0, 10, m2);
  EXPECT_TRUE(lazy.store(D, 0x1, 0, 20, m2));  // warp 0 in the FSM: waits for B and C
  EXPECT_EQ(lazy.evicting(D, 30, m2), 10 + ack_delay) << "ACTR must reach zero before D may leave";
  EXPECT_EQ(lazy.stats().eviction_stall_time, 10 + ack_delay - 30);
  EXPECT_EQ(lazy.stats().eviction_stalls, 1u) << "held by the FSM: counted with its time";
  EXPECT_EQ(pb.stats().eviction_stalls, 0u);
}

TEST(PersistBuffer, AnEvictionWaitsOnlyForTheOrderingEntriesOfItsOwnWarps) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::window, 1);
  EXPECT_TRUE(pb.store(A, 0x1, 0, 0, m));  // in flight: the window of 1 is full
  EXPECT_TRUE(pb.store(B, 0x1, 1, 1, m));
  pb.order(w1, 2, m);
  EXPECT_TRUE(pb.store(C, 0x1, 0, 3, m));  // behind warp 1's ordering entry
  EXPECT_TRUE(pb.store(D, 0x1, 1, 4, m));  // behind its own warp's
  EXPECT_EQ(m.written_at(B), ~picos(0));
  // Warp 1's ordering point orders nothing of warp 0's C: it leaves at once.
  EXPECT_EQ(pb.evicting(C, 5, m), 5u);
  pb.evicted(C, 5, 5 + ack_delay, m);
  EXPECT_EQ(m.written_at(B), ~picos(0)) << "C's eviction wrote nothing ahead of it";
  EXPECT_EQ(pb.stats().eviction_stalls, 0u);
  // D is ordered after B: B is written now, and D waits for ACTR to be zero.
  EXPECT_EQ(pb.evicting(D, 6, m), 6 + ack_delay);
  EXPECT_EQ(m.written_at(B), 6u);
  EXPECT_EQ(pb.stats().eviction_stalls, 1u);
}

// A lazy buffer holding A (warp 0), warp 1's ordering point, B (warp 0) and
// C (warp 1, past its ordering point: the FSM holds it until ACTR is zero).
void store_a_b_and_held_c(persist_buffer& pb, recording_memory& m) {
  EXPECT_TRUE(pb.store(A, 0x1, 0, 0, m));
  pb.order(w1, 1, m);
  EXPECT_TRUE(pb.store(B, 0x1, 0, 2, m));
  EXPECT_TRUE(pb.store(C, 0x1, 1, 3, m));
}

TEST(PersistBuffer, DrainWritesEverythingAndReturnsWhenTheLastIsDurable) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::lazy, 6);
  store_a_b_and_held_c(pb, m);
  // B goes at 100; C only once everything in flight (A, B) is durable.
  EXPECT_EQ(pb.drain(100, m), 100 + 2 * ack_delay);
  EXPECT_EQ(m.written_at(B), 100u);
  EXPECT_EQ(m.written_at(C), 100 + ack_delay);
  EXPECT_EQ(pb.size(), 0u);
}

TEST(PersistBuffer, AnUnorderedDrainWritesEverythingAtOnce) {
  recording_memory m;
  persist_buffer pb(256, flush_policy::lazy, 6);
  store_a_b_and_held_c(pb, m);  // an ordered drain would hold C
  EXPECT_EQ(pb.drain(100, m, false), 100 + ack_delay);
  EXPECT_EQ(m.written_at(B), 100u);
  EXPECT_EQ(m.written_at(C), 100u);
  EXPECT_EQ(pb.size(), 0u);
}

}  // namespace
