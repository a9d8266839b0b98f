// gpDB: INSERT-only, UPDATE-only and mixed batches against the sequential
// reference in both styles; the check catches a corrupted row; a crash
// leaves a batch that verify refuses until recovery; crash points do not
// depend on the schedule; CAP-mm persists more for UPDATEs; bad parameters.
#include <gtest/gtest.h>

#include "gpdb/gpdb.hpp"
#include "workload_harness.hpp"
#include "print_style.hpp"

namespace {
using namespace gpmx;
using apps::style;

class GpdbTest : public testing::TestWithParam<style> {
 protected:
  test::workload_harness h{"gpdb"};
};

TEST_P(GpdbTest, MixesMatchTheReference) {
  for (std::uint64_t pct : {0, 50, 100}) {
    SCOPED_TRACE("update_percent " + std::to_string(pct));
    const auto p = h.with({{"update_percent", pct}, {"batches", 5}});
    const apps::run_report r = h.run(p, GetParam());
    EXPECT_EQ(r.operations, 5u * 32);
    EXPECT_EQ(r.batches, 5u);
    EXPECT_GT(r.bytes_persisted, 0u);
    const apps::verify_report v = h.verify();
    EXPECT_TRUE(v.ok) << v.detail;
    const std::uint64_t rows = h.read_word("gpdb.pool", "txn", 1);
    EXPECT_EQ(rows, 256 + 5 * (32 - 32 * pct / 100)) << "INSERTs grow the table, UPDATEs do not";
    EXPECT_FALSE(h.recover().repaired);
  }
}

TEST_P(GpdbTest, DeterministicSchedulesGiveTheReferenceAndTheSameCrashPoints) {
  const auto p = h.with({});
  (void)h.run(p, GetParam(), cpu::schedule::deterministic, 7);
  EXPECT_TRUE(h.verify().ok);
  const std::uint64_t a = h.crash_points(p, GetParam(), cpu::schedule::deterministic, 1);
  const std::uint64_t b = h.crash_points(p, GetParam(), cpu::schedule::deterministic, 2);
  const std::uint64_t c = h.crash_points(p, GetParam(), cpu::schedule::parallel, 0);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

TEST_P(GpdbTest, VerificationCatchesACorruptedRow) {
  (void)h.run(h.with({}), GetParam());
  ASSERT_TRUE(h.verify().ok);
  h.flip_word("gpdb.pool", "table", 5 * 4 + 2, 1);  // row 5, column value
  const apps::verify_report v = h.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("row 5"), std::string::npos) << v.detail;
}

TEST_P(GpdbTest, ACrashMidBatchNeedsRecoveryThenVerifies) {
  const auto p = h.with({});
  const std::uint64_t points = h.crash_points(p, GetParam(), cpu::schedule::parallel, 0);
  h.run_killed_at(p, GetParam(), points / 2);
  const apps::verify_report before = h.verify();
  EXPECT_FALSE(before.ok);
  EXPECT_NE(before.detail.find("recover first"), std::string::npos) << before.detail;
  EXPECT_TRUE(h.recover().repaired);
  const apps::verify_report after = h.verify();
  EXPECT_TRUE(after.ok) << after.detail;
}

INSTANTIATE_TEST_SUITE_P(Styles, GpdbTest, testing::Values(style::epoch, style::sbrp),
                         [](const auto& i) { return std::string(apps::to_string(i.param)); });

TEST(Gpdb, CapMmPersistsMoreForUpdatesOfABigTable) {
  test::workload_harness h{"gpdb"};
  auto bytes = [&](std::uint64_t pct, bool cap) {
    const auto p = h.with({{"update_percent", pct}, {"rows", 1 << 16}, {"cap_chunk_rows", 1024}});
    cpu::executor ex({.workers = 2});
    const apps::env e{ex, h.dir.path(), pm::durability::none};
    return (cap ? h.w.run_cap_mm(e, p) : h.w.run(e, p, style::epoch)).bytes_persisted;
  };
  ASSERT_TRUE(h.w.has_cap_mm());
  // 32 scattered UPDATEs a batch touch about 25 of the 64 chunks of 32 KiB;
  // GPM persists each row and its log entry.
  EXPECT_GT(bytes(100, true), 2 * bytes(100, false));
  // INSERTs are contiguous: CAP persists about what GPM persists.
  EXPECT_LT(bytes(0, true), 4 * bytes(0, false));
}

TEST(Gpdb, RejectsBadParameters) {
  test::workload_harness h{"gpdb"};
  test::expect_config_error_naming([&] { (void)h.run(h.with({{"update_percent", 101}}), style::epoch); },
                                   "update_percent");
  test::expect_config_error_naming([&] { (void)h.run(h.with({{"batch", 0}}), style::epoch); }, "batch");
  test::expect_config_error_naming([&] { (void)h.run(h.with({{"rows", 0}, {"update_percent", 100}}), style::epoch); },
                                   "rows");
}

TEST(Gpdb, ReferenceUpdatesDistinctRowsAndAppendsInserts) {
  const apps::gpdb::shape s{100, 10, 60, 3, 1};
  for (std::uint64_t b = 0; b < s.batches; ++b) {
    const auto ops = apps::gpdb::make_batch(s, b);
    std::set<std::uint64_t> rows;
    for (const auto& u : ops.updates) {
      EXPECT_LT(u.row, s.rows_before(b));
      rows.insert(u.row);
    }
    EXPECT_EQ(rows.size(), 60u);
    ASSERT_EQ(ops.inserts.size(), 10u);
    EXPECT_EQ(ops.inserts[0].id, s.rows_before(b));
  }
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(GpdbSeededBug, LogTailFirstRunVerifies) { test::expect_seeded_bug_run_verifies("gpdb", "log-tail-first"); }

}  // namespace
