// Crashes in the timed mode: SBRP's six workloads run once each on the
// simulated GPU (in both styles, on the hardware of their model) with
// their PM writes followed to durability; the NVM's contents at many
// simulated times are written as the pool files, and each must recover and
// verify (docs/sim-persistency.md, "Crash images").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "timed_images.hpp"
#include "workload_cases.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

class TimedCrash : public testing::TestWithParam<test::workload_case> {};

TEST_P(TimedCrash, TheNVMAtAnyCycleRecoversAndVerifies) {
  if (test::too_big_for_thread_sanitizer(GetParam().workload)) GTEST_SKIP() << "too many mappings under TSan";
  sim::sim_config c;
  if (GetParam().s == style::sbrp) c.persist.model = sim::persist_model::sbrp;
  test::timed_images t(find_workload(GetParam().workload), c);
  t.run(GetParam().s);
  ASSERT_EQ(t.tracker.waiting(), 0u) << "PM writes the model never issued or never wrote back";
  ASSERT_EQ(t.tracker.log().pieces_not_durable(), 0u);
  const sim::picos end = t.gpu.totals().end;
  ASSERT_GT(end, 0u);

  // The images change only when a write becomes durable: a crash at each
  // such time (up to GPMX_TIMED_CRASH_IMAGES of them, evenly chosen;
  // default 48), at time 0 and past the end.
  std::vector<sim::picos> crashes = t.crash_times("GPMX_TIMED_CRASH_IMAGES", 48);
  crashes.insert(crashes.end(), {0, end + 1});
  unsigned repaired = 0;
  for (const sim::picos at : crashes) {
    const auto o = t.recover_image(at);
    repaired += o.repaired ? 1 : 0;
    EXPECT_FALSE(o.failure) << *o.failure;
  }
  // The images differ: recovery had something to repair in some of them.
  EXPECT_GT(repaired, 0u);
}

INSTANTIATE_TEST_SUITE_P(EveryWorkload, TimedCrash, testing::ValuesIn(test::every_workload_in_both_styles()),
                         test::case_name);

// The transaction log's rings truncated by an agent while the kernel runs:
// the truncator's persists are host write-backs the model times and the
// images follow, so a crash between them (or between them and the
// kernel's stores) must recover too. Rings of one record per committer
// (helpers off) and of a helper's buffer plus a drain (helpers on).
TEST(TimedCrashRings, TheNVMAtAnyCycleRecoversAndVerifiesWhileTheTruncatorRuns) {
  for (const apps::params& ring : {apps::params{{"helpers", 0}, {"log_entries", 8}},
                                   apps::params{{"helpers", 1}, {"log_entries", 96}}}) {
    test::timed_images t(find_workload("tx-atm"), sim::sim_config{});
    t.run(style::epoch, "", ring);
    const std::string which = "helpers=" + std::to_string(ring.at("helpers"));
    EXPECT_GT(t.gpu.memory().stats().host_pm_write_bytes, 0u) << which << ": the truncator persisted nothing";
    ASSERT_EQ(t.tracker.log().pieces_not_durable(), 0u) << which;
    std::vector<sim::picos> crashes = t.crash_times("GPMX_TIMED_CRASH_IMAGES", 48);
    crashes.push_back(t.gpu.totals().end + 1);
    unsigned repaired = 0;
    for (const sim::picos at : crashes) {
      const auto o = t.recover_image(at);
      repaired += o.repaired ? 1 : 0;
      EXPECT_FALSE(o.failure) << which << ": " << *o.failure;
    }
    EXPECT_GT(repaired, 0u) << which;
  }
}

}  // namespace
