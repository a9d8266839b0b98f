// The stage sampler of `gpmx bench storage --stages`: where it places
// commands, read from a queue pair left in a known state (no controller:
// nothing fetched, so every command behind the doorbell is queued).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "gpmx/storage/queue_memory.hpp"
#include "queue_stage_sampler.hpp"

namespace {
using namespace gpmx;

// What a controller writes for a completion at position p.
void post(const storage::queue_pair_view& q, std::uint64_t p, std::uint16_t cid) {
  storage::nvme_completion* e = &q.cq[p % q.depth];
  *storage::detail::completion_word(e) = cid | (storage::detail::expected_phase(p, q.depth) << 16);
}

TEST(QueueStageSampler, PlacesEachCommandAtItsStep) {
  storage::queue_pair_memory memory(1, {.depth = 8});
  const storage::queue_pair_view q = memory.view();
  *q.ticket = 9;   // 9 tickets taken
  *q.sq_tail = 6;  // 6 of them behind the doorbell, 3 still submitting
  *q.cq_head = 2;  // two completions reclaimed
  post(q, 2, 7);   // posted, its thread has not seen it
  post(q, 3, 8);   // posted and marked
  q.cq_mark[3] = 1;
  post(q, 0, 1);   // behind the head: not counted
  bench::queue_stage_sampler sampler({q}, {}, 12);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const bench::queue_stages s = sampler.stop();
  ASSERT_GT(s.samples, 0u);
  EXPECT_DOUBLE_EQ(s.submitting, 3);
  EXPECT_DOUBLE_EQ(s.queued, 6);
  EXPECT_DOUBLE_EQ(s.in_io, 0);
  EXPECT_DOUBLE_EQ(s.finished, 0);
  EXPECT_DOUBLE_EQ(s.unseen, 1);
  EXPECT_DOUBLE_EQ(s.unreclaimed, 1);
  EXPECT_DOUBLE_EQ(s.between, 12 - 3 - 6 - 1 - 1);
}

TEST(QueueStageSampler, AnEntryOfTheLastPassIsNotPosted) {
  storage::queue_pair_memory memory(1, {.depth = 4});
  const storage::queue_pair_view q = memory.view();
  *q.cq_head = 4;  // the second pass: the phase flips
  post(q, 0, 5);   // written in the first pass, at the slot position 4 will use
  bench::queue_stage_sampler sampler({q}, {}, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const bench::queue_stages s = sampler.stop();
  ASSERT_GT(s.samples, 0u);
  EXPECT_DOUBLE_EQ(s.unseen, 0);
  EXPECT_DOUBLE_EQ(s.between, 1);
}

}  // namespace
