// Every registered workload, in both styles: a whole run verifies; then runs
// SIGKILLed at random crash points (and half the time a recovery killed too)
// recover and verify. Each step runs in a child so that this process never
// starts a thread and can keep forking. GPMX_CRASH_POINTS raises the count.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>

#include "common/crash_run.hpp"
#include "common/registry.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "workload_cases.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

using test::case_name;
using test::workload_case;

unsigned crash_points() {
  const char* e = std::getenv("GPMX_CRASH_POINTS");
  return e ? unsigned(std::max(20l, std::atol(e))) : 20u;
}

class WorkloadCrash : public testing::TestWithParam<workload_case> {
 protected:
  workload& w() { return find_workload(GetParam().workload); }
  // Each step in a child with its own executor; throws inside become failures.
  child_outcome run(std::uint64_t crash_after) {
    return run_in_child(crash_after, [&] {
      cpu::executor ex({.workers = 2});
      w().run({ex, dir.path(), pm::durability::msync}, resolve_params(w(), w().small_params()), GetParam().s);
    });
  }
  child_outcome recover(std::uint64_t crash_after) {
    return run_in_child(crash_after, [&] {
      cpu::executor ex({.workers = 2});
      (void)w().recover({ex, dir.path(), pm::durability::msync});
    });
  }
  child_outcome verify() {
    return run_in_child(0, [&] {
      cpu::executor ex({.workers = 2});
      const verify_report v = w().verify({ex, dir.path(), pm::durability::msync});
      if (!v.ok) throw std::runtime_error("verify: " + v.detail);
    });
  }
  scratch_dir dir;
};

TEST_P(WorkloadCrash, WholeRunVerifies) {
  const child_outcome r = run(0);
  ASSERT_FALSE(r.failed) << r.error;
  EXPECT_GT(r.points, 0u) << "the run reached no crash point";
  const child_outcome v = verify();
  ASSERT_FALSE(v.failed) << v.error;
}

TEST_P(WorkloadCrash, RecoversFromKillsAtRandomCrashPoints) {
  const child_outcome whole = run(0);
  ASSERT_FALSE(whole.failed) << whole.error;
  ASSERT_GT(whole.points, 1u);
  std::mt19937_64 rng(std::hash<std::string>{}(case_name({GetParam(), 0})));
  const unsigned n = crash_points();
  for (unsigned i = 0; i < n; ++i) {
    const std::uint64_t at = 1 + rng() % whole.points;
    SCOPED_TRACE("crash after " + std::to_string(at) + " of " + std::to_string(whole.points) + " points");
    const child_outcome r = run(at);
    ASSERT_FALSE(r.failed) << r.error;
    ASSERT_TRUE(r.killed) << "the run finished before its crash point";
    if (i % 2 == 1) {  // a crash during recovery, then recover again
      const child_outcome rc = recover(1 + rng() % 64);
      ASSERT_FALSE(rc.failed) << rc.error;
    }
    const child_outcome rc = recover(0);
    ASSERT_FALSE(rc.failed) << rc.error;
    const child_outcome v = verify();
    ASSERT_FALSE(v.failed) << v.error;
  }
}

INSTANTIATE_TEST_SUITE_P(AllWorkloads, WorkloadCrash, testing::ValuesIn(test::every_workload_in_both_styles()),
                         case_name);

}  // namespace
