// Multiqueue: batches against the sequential reference in both styles, on
// parallel and deterministic schedules with equal crash-point counts; the
// check catches a corrupted element and a wrong head; a crash needs
// recovery, which restores the heads and tails; bad parameters.
#include <gtest/gtest.h>

#include "multiqueue/multiqueue.hpp"
#include "workload_harness.hpp"
#include "print_style.hpp"

namespace {
using namespace gpmx;
using apps::style;
namespace mq = apps::multiqueue;

class MultiqueueTest : public testing::TestWithParam<style> {
 protected:
  test::workload_harness h{"multiqueue"};
};

TEST_P(MultiqueueTest, BatchesMatchTheReference) {
  // Queues fill up (inserts stop at capacity) and empty (removals stop at zero).
  for (std::uint64_t pct : {0, 60, 100}) {
    SCOPED_TRACE("insert_percent " + std::to_string(pct));
    const auto p = h.with({{"insert_percent", pct}, {"batches", 10}});
    const apps::run_report r = h.run(p, GetParam());
    EXPECT_EQ(r.batches, 10u);
    if (pct == 0) {
      EXPECT_EQ(r.operations, 0u);
    }
    if (pct == 100) {
      EXPECT_EQ(r.operations, 4u * 32);  // every queue full
    }
    const apps::verify_report v = h.verify();
    EXPECT_TRUE(v.ok) << v.detail;
  }
}

TEST_P(MultiqueueTest, DeterministicSchedulesGiveTheReferenceAndTheSameCrashPoints) {
  const auto p = h.with({});
  (void)h.run(p, GetParam(), cpu::schedule::deterministic, 5);
  EXPECT_TRUE(h.verify().ok);
  const std::uint64_t a = h.crash_points(p, GetParam(), cpu::schedule::deterministic, 1);
  const std::uint64_t b = h.crash_points(p, GetParam(), cpu::schedule::deterministic, 2);
  const std::uint64_t c = h.crash_points(p, GetParam(), cpu::schedule::parallel, 0);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

TEST_P(MultiqueueTest, VerificationCatchesACorruptedElementAndHead) {
  (void)h.run(h.with({{"insert_percent", 100}}), GetParam());
  ASSERT_TRUE(h.verify().ok);
  h.flip_word("multiqueue.pool", "ring", 3, 1 << 8);  // queue 0, a live element
  apps::verify_report v = h.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("queue 0 element"), std::string::npos) << v.detail;
  h.flip_word("multiqueue.pool", "ring", 3, 1 << 8);
  h.flip_word("multiqueue.pool", "queues", 2 * mq::queue_words + mq::q_head, 1);
  v = h.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("queue 2 has head"), std::string::npos) << v.detail;
}

TEST_P(MultiqueueTest, ACrashMidBatchNeedsRecoveryWhichRestoresHeadsAndTails) {
  const auto p = h.with({});
  const std::uint64_t points = h.crash_points(p, GetParam(), cpu::schedule::parallel, 0);
  h.run_killed_at(p, GetParam(), points / 2);
  const apps::verify_report before = h.verify();
  EXPECT_FALSE(before.ok);
  EXPECT_NE(before.detail.find("recover first"), std::string::npos) << before.detail;
  EXPECT_TRUE(h.recover().repaired);
  const apps::verify_report after = h.verify();
  EXPECT_TRUE(after.ok) << after.detail;
  EXPECT_FALSE(h.recover().repaired);
}

INSTANTIATE_TEST_SUITE_P(Styles, MultiqueueTest, testing::Values(style::epoch, style::sbrp),
                         [](const auto& i) { return std::string(apps::to_string(i.param)); });

TEST(Multiqueue, ReferenceMovesAtMostElemsAndStaysWithinCapacity) {
  const mq::shape s{3, 4, 10, 4, 20, 70, 2};
  std::vector<mq::reference_queue> q(s.queues);
  for (std::uint64_t b = 0; b < s.batches; ++b) {
    mq::apply_reference(q, mq::make_ops(s, b), s, b);
    for (const auto& x : q) {
      EXPECT_EQ(x.tail - x.head, x.elements.size());
      EXPECT_LE(x.elements.size(), s.capacity);
    }
  }
}

TEST(Multiqueue, RejectsBadParameters) {
  test::workload_harness h{"multiqueue"};
  test::expect_config_error_naming([&] { (void)h.run(h.with({{"elems", 33}}), style::epoch); }, "elems");
  test::expect_config_error_naming([&] { (void)h.run(h.with({{"threads", 0}}), style::epoch); }, "threads");
  test::expect_config_error_naming([&] { (void)h.run(h.with({{"insert_percent", 200}}), style::epoch); },
                                   "insert_percent");
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(MultiqueueSeededBug, EarlyPublishRunVerifies) {
  test::expect_seeded_bug_run_verifies("multiqueue", "early-publish");
}

TEST(MultiqueueSeededBug, UnorderedLogMarkRunVerifies) {
  test::expect_seeded_bug_run_verifies("multiqueue", "unordered-log-mark");
}

}  // namespace
