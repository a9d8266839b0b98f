// The transaction benchmarks beyond what the registry-wide suites check
// (crash points, checker, seeded bugs): hash-table contents, and what the
// NVRAM throttle charges with helper warps (coalesced) and without.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <utility>
#include <stdexcept>
#include <string>

#include "gpmx/pm/pool.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/stm/record_format.hpp"
#include "tx/write_test.hpp"
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

// SIGKILL at random crash points of a whole run (drawn from its first
// `reachable` share of points), half the time a recovery killed too, then
// recovery and verify, each in a fresh process.
void kill_recover_verify(workload_harness& h, const apps::params& p, std::uint64_t seed, double reachable = 1.0) {
  const auto in_child = [&](std::uint64_t at, auto&& step) {
    return apps::run_in_child(at, [&] {
      cpu::executor ex({.workers = 2});
      step(apps::env{ex, h.dir.path(), pm::durability::msync});
    });
  };
  const auto run = [&](std::uint64_t at) { return in_child(at, [&](const apps::env& e) { h.w.run(e, p, apps::style::epoch); }); };
  const apps::child_outcome whole = run(0);
  ASSERT_FALSE(whole.failed) << whole.error;
  ASSERT_GT(whole.points, 1u);
  const std::uint64_t points = std::max<std::uint64_t>(1, std::uint64_t(double(whole.points) * reachable));
  std::mt19937_64 rng(seed);
  for (unsigned i = 0; i < 6; ++i) {
    const std::uint64_t at = 1 + rng() % points;
    SCOPED_TRACE("crash after " + std::to_string(at) + " of " + std::to_string(whole.points));
    const apps::child_outcome r = run(at);
    ASSERT_FALSE(r.failed) << r.error;
    ASSERT_TRUE(r.killed);
    if (i % 2 == 1) {
      const apps::child_outcome rc = in_child(1 + rng() % 64, [&](const apps::env& e) { (void)h.w.recover(e); });
      ASSERT_FALSE(rc.failed) << rc.error;
    }
    const apps::child_outcome rc = in_child(0, [&](const apps::env& e) { (void)h.w.recover(e); });
    ASSERT_FALSE(rc.failed) << rc.error;
    const apps::child_outcome v = in_child(0, [&](const apps::env& e) {
      const apps::verify_report rep = h.w.verify(e);
      if (!rep.ok) throw std::runtime_error("verify: " + rep.detail);
    });
    ASSERT_FALSE(v.failed) << v.error;
  }
}

// The registry-wide crash suite runs the benchmarks with their default
// (helpers on); here helpers off and adaptive.
TEST(TxCrash, HelpersOffAndAdaptiveRecoverFromKillsAtRandomPoints) {
  for (const char* name : {"tx-atm", "tx-hash", "tx-bvh"})
    for (std::uint64_t helpers : {0, 2}) {
      SCOPED_TRACE(std::string(name) + " helpers=" + std::to_string(helpers));
      workload_harness h(name);
      kill_recover_verify(h, h.with({{"helpers", helpers}}), helpers * 7919 + std::string(name).size());
      if (testing::Test::HasFatalFailure()) return;
    }
}

// Truncation while kernels run: log rings far smaller than a launch's
// records (a committer's holds two records, a helper's the persistence
// buffer and one drain), in every helper mode and schedule: the truncator
// applies records and gives entries back while the kernel runs, writers
// wait for room, and the result is the sequential reference.
TEST(TxTruncation, RingsTruncatedWhileKernelsRunGiveTheSequentialResult) {
  for (std::uint64_t helpers : {0, 1, 2})
    for (const cpu::schedule policy : {cpu::schedule::parallel, cpu::schedule::deterministic}) {
      SCOPED_TRACE(fmt::format("helpers={} {}", helpers, policy == cpu::schedule::parallel ? "parallel" : "deterministic"));
      workload_harness h("tx-atm");
      const std::uint64_t ring = 64;
      const apps::params p = h.with({{"helpers", helpers}, {"ring", ring}, {"per_thread", 32}, {"threshold_mbps", 1},
                                     {"slice_us", 10}, {"log_entries", helpers == 0 ? 8 : ring + 32}});
      const apps::run_report r = h.run(p, apps::style::epoch, policy, 7);
      EXPECT_GT(figure(r, "records_applied_while_running"), 0);
      EXPECT_GT(figure(r, "truncations_while_running"), 0);
      if (helpers == 0) {
        EXPECT_GT(figure(r, "log_room_waits"), 0) << "a committer's 32 records cannot fit 2 at a time";
      }
      const apps::verify_report v = h.verify();
      EXPECT_TRUE(v.ok) << v.detail;
      EXPECT_NE(v.detail.find("match the sequential reference"), std::string::npos) << v.detail;
    }
}

TEST(TxTruncation, ARingTooSmallToMakeProgressIsRefusedByName) {
  workload_harness h("tx-atm");
  for (const auto& [helpers, entries] : {std::pair<std::uint64_t, std::uint64_t>{0, 3}, {1, 95}}) {
    try {
      (void)h.run(h.with({{"helpers", helpers}, {"ring", 64}, {"log_entries", entries}}), apps::style::epoch);
      ADD_FAILURE() << "no error for log_entries=" << entries;
    } catch (const config_error& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format("log_entries={}", entries)), std::string::npos) << e.what();
    }
  }
}

// SIGKILL anywhere, the truncator's steps included, with recovery killed
// too half the time: recovery reads each ring from its durable start. The
// truncator's steps are crash points too (about a tenth of them), and how
// many it takes depends on timing: fewer, larger steps on a loaded
// machine. A point near the end of one run may not come in the next, so
// the kills are drawn from the first 60%.
TEST(TxTruncation, KillsAtRandomPointsRecoverWithRings) {
  for (const char* name : {"tx-atm", "tx-bvh"})
    for (std::uint64_t helpers : {0, 1}) {
      SCOPED_TRACE(std::string(name) + " helpers=" + std::to_string(helpers));
      workload_harness h(name);
      const apps::params p = h.with({{"helpers", helpers}, {"ring", 64}, {"log_entries", helpers == 0 ? 12 : 96}});
      kill_recover_verify(h, p, helpers * 104729 + std::string(name).size(), 0.6);
      if (testing::Test::HasFatalFailure()) return;
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

// The write-pressure test (the threshold's calibration kernel): in every
// helper mode a whole run leaves each committer's words at its count of
// transactions; killed anywhere, recovery leaves whole transactions only.
TEST(TxWriteTest, AWholeRunLeavesEveryCommittersWordsAtItsTransactionCount) {
  const auto w = apps::tx::make_tx_write_test();
  for (std::uint64_t helpers : {0, 1, 2}) {
    SCOPED_TRACE("helpers=" + std::to_string(helpers));
    workload_harness h(*w);
    const apps::params p = h.with({{"helpers", helpers}, {"writes", 3}});
    const apps::run_report r = h.run(p, apps::style::epoch);
    EXPECT_EQ(r.operations, p.at("blocks") * p.at("threads") * p.at("per_thread") * p.at("batches"));
    const apps::verify_report v = h.verify();
    EXPECT_TRUE(v.ok) << v.detail;
    EXPECT_NE(v.detail.find("every committer's words hold 8"), std::string::npos) << v.detail;  // 2 batches x 4
  }
}

TEST(TxWriteTest, VerifyNamesACommitterWhoseWordsDisagree) {
  const auto w = apps::tx::make_tx_write_test();
  workload_harness h(*w);
  (void)h.run(h.with({{"writes", 2}}), apps::style::epoch);
  {
    pm::pool pool = pm::pool::open(h.dir.path() / "tx.pool", pm::durability::none);
    std::span<std::uint32_t> home = pool.find("tx_home").as<std::uint32_t>();
    home[2 * 5 + 1] += 1;  // committer 5's second word
  }
  const apps::verify_report v = h.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("committer 5"), std::string::npos) << v.detail;
}

TEST(TxWriteTest, KillsAtRandomPointsRecoverToWholeTransactions) {
  const auto w = apps::tx::make_tx_write_test();
  workload_harness h(*w);
  kill_recover_verify(h, h.with({{"helpers", 1}}), 31337);
}

// The monitor's steady bandwidth (its slices but each launch's first and
// last), in simulated time: committers alone persist every record, so it
// is close to the log's bytes over the kernels' time.
TEST(TxWriteTest, TheMonitorMeasuresTheSteadyPersistenceBandwidth) {
  const auto w = apps::tx::make_tx_write_test();
  workload_harness h(*w);
  const apps::params p = h.with({{"helpers", 2}, {"threshold_mbps", 4000000000}, {"slice_us", 1}, {"per_thread", 16}});
  sim::gpu_model gpu{sim::sim_config{}};
  apps::run_report r;
  {
    cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
    r = w->run({ex, h.dir.path(), pm::durability::none}, p, apps::style::epoch);
  }
  EXPECT_EQ(figure(r, "helper_switches"), 0);
  EXPECT_EQ(figure(r, "records_by_helpers"), 0);
  const double bytes = figure(r, "records_by_committers") * stm::record_entries(2) * sizeof(std::uint64_t);
  const double average_mbps = bytes / (double(gpu.totals().kernel_time()) * 1e-12) / 1e6;
  const double steady = figure(r, "steady_persist_mbps");
  EXPECT_GT(steady, 0.5 * average_mbps) << "average " << average_mbps;
  EXPECT_LT(steady, 2.0 * average_mbps) << "average " << average_mbps;
  // Helpers always on: no monitor, no figure.
  const apps::run_report on = h.run(h.with({{"helpers", 1}}), apps::style::epoch);
  EXPECT_EQ(figure(on, "steady_persist_mbps"), -1);
}

}  // namespace
}  // namespace gpmx::test
