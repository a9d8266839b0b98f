// The transaction benchmarks beyond what the registry-wide suites check
// (crash points, checker, seeded bugs): hash-table contents, and what the
// NVRAM throttle charges with helper warps (coalesced) and without.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "workload_harness.hpp"

namespace gpmx::test {
namespace {

double figure(const apps::run_report& r, const std::string& name) {
  for (const auto& [n, v] : r.figures)
    if (n == name) return v;
  ADD_FAILURE() << "no figure " << name;
  return 0;
}

TEST(TxHash, EveryKeyOnceInEveryHelperMode) {
  for (std::uint64_t helpers : {0, 1, 2}) {
    workload_harness h("tx-hash");
    const apps::params p = h.with({{"helpers", helpers}, {"durable", 1}});
    const apps::run_report r = h.run(p, apps::style::epoch);
    EXPECT_EQ(r.operations, 3u * 64 * 3 * 2) << "helpers=" << helpers;
    const apps::verify_report v = h.verify();
    EXPECT_TRUE(v.ok) << v.detail;
    EXPECT_EQ(v.checked, r.operations);
    EXPECT_NE(v.detail.find("all 1152 keys inserted"), std::string::npos) << v.detail;
  }
}

TEST(TxHash, TheDeterministicScheduleGivesAValidTableWithEverySeed) {
  for (std::uint64_t seed : {1, 2, 3}) {
    workload_harness h("tx-hash");
    (void)h.run(h.with({{"helpers", seed % 3}}), apps::style::sbrp, cpu::schedule::deterministic, seed);
    const apps::verify_report v = h.verify();
    EXPECT_TRUE(v.ok) << "seed " << seed << ": " << v.detail;
  }
}

TEST(TxHash, AKeyNoInsertMadeIsNamed) {
  workload_harness h("tx-hash");
  (void)h.run(h.with({}), apps::style::epoch);
  // Entry k is 8-byte word k of the home image (key, value); find an empty one.
  std::uint64_t entry = 0;
  while (h.read_word("tx.pool", "tx_home", entry) != 0) ++entry;
  h.flip_word("tx.pool", "tx_home", entry, 0x5eed);
  const apps::verify_report v = h.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find(fmt::format("entry {} holds key 0x5eed, which no insert made", entry)), std::string::npos)
      << v.detail;
}

TEST(TxHash, AnOverfullTableIsRefusedBeforeAnythingIsWritten) {
  workload_harness h("tx-hash");
  (void)h.run(h.with({}), apps::style::epoch);
  try {
    (void)h.run(h.with({{"base", 64}, {"extended", 64}}), apps::style::epoch);
    ADD_FAILURE() << "no error";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("more than half"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(h.verify().ok) << "the earlier run's data was touched";
}

TEST(TxBvh, TheTreeAndItsBoxesMatchTheReferenceInEveryHelperMode) {
  for (std::uint64_t helpers : {0, 1, 2}) {
    workload_harness h("tx-bvh");
    const apps::run_report r = h.run(h.with({{"helpers", helpers}}), apps::style::epoch);
    // 3 construction transactions per internal node, 2 per internal node
    // in the reduction (the first child's flag, the second's box), and the
    // read-only one that finds the root has no parent.
    EXPECT_EQ(figure(r, "commits"), 3.0 * 299 + 2 * 299 + 1) << "helpers=" << helpers;
    const apps::verify_report v = h.verify();
    EXPECT_TRUE(v.ok) << v.detail;
    EXPECT_NE(v.detail.find("matches the reference"), std::string::npos) << v.detail;
  }
}

TEST(TxBvh, TheDeterministicScheduleGivesTheSameTreeWithEverySeed) {
  for (std::uint64_t seed : {1, 2, 3}) {
    workload_harness h("tx-bvh");
    (void)h.run(h.with({{"helpers", seed % 3}}), apps::style::sbrp, cpu::schedule::deterministic, seed);
    const apps::verify_report v = h.verify();
    EXPECT_TRUE(v.ok) << "seed " << seed << ": " << v.detail;
  }
}

TEST(TxBvh, ABoxThatIsNotTheUnionOfItsChildrenIsNamed) {
  workload_harness h("tx-bvh");
  (void)h.run(h.with({}), apps::style::epoch);
  // The root's box: internal node 0's first box word is home word
  // 3 * 299 + 599 (tree_layout::box), the low half of 8-byte word 748.
  h.flip_word("tx.pool", "tx_home", (3 * 299 + 599) / 2, 0x1);
  const apps::verify_report v = h.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("internal node 0's box is not the union of its children's"), std::string::npos) << v.detail;
}

TEST(TxBvh, TooFewCommittersAreRefusedByName) {
  workload_harness h("tx-bvh");
  try {
    (void)h.run(h.with({{"blocks", 1}}), apps::style::epoch);
    ADD_FAILURE() << "no error";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("fewer than the 300 leaves"), std::string::npos) << e.what();
  }
}

// A throttle fast enough not to slow the run: only what it charges matters.
TEST(TxThrottle, HelperWarpsPersistCoalescedAndAreChargedLess) {
  double per_tx[2] = {};
  for (std::uint64_t helpers : {0, 1}) {
    workload_harness h("tx-atm");
    const apps::run_report r = h.run(h.with({{"helpers", helpers}, {"nvram_mbps", 1000000}}), apps::style::epoch);
    ASSERT_GT(figure(r, "commits"), 0);
    per_tx[helpers] = figure(r, "nvram_bytes_charged") / figure(r, "commits");
    EXPECT_TRUE(h.verify().ok);
  }
  // Without helpers each of a transfer's four entries is its own persist of
  // a 64-byte sector; a helper warp writes 32 entries (8 bytes each) as one
  // range, twice (records, then marks).
  EXPECT_DOUBLE_EQ(per_tx[0], 4 * 64.0);
  EXPECT_LT(per_tx[1], per_tx[0] / 2) << "helpers " << per_tx[1] << " B/tx, committers " << per_tx[0] << " B/tx";
}

}  // namespace
}  // namespace gpmx::test
