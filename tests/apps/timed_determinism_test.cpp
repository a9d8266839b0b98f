// The timed mode gives one answer per run: every workload, run twice in
// one process on the simulated GPU, with other host allocations and a
// longer data path in between, takes the same simulated time (kernel
// buffers placed canonically, freed ones reused in a fixed order:
// docs/sim.md, "Simulated addresses and the host's heap"); and the same
// with loads run ahead of their issue as without.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/registry.hpp"
#include "gpmx/pm/pool_identity.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "timed_images.hpp"
#include "workload_cases.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

sim::picos timed_run(workload& w, style s, const std::string& directory,
                     std::uint32_t run_ahead = sim::sim_config{}.sched.run_ahead) {
  sim::sim_config c;
  if (s == style::sbrp) c.persist.model = sim::persist_model::sbrp;
  c.sched.run_ahead = run_ahead;
  sim::gpu_model gpu(c);
  scratch_dir dir;
  const pm::deterministic_pool_identity identity(1);
  const sim::canonical_kernel_memory placement;
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  w.run({ex, dir / directory, pm::durability::none}, resolve_params(w, w.small_params()), s);
  return gpu.totals().end;
}

class TimedDeterminism : public testing::TestWithParam<test::workload_case> {};

TEST_P(TimedDeterminism, ARunTakesTheSameTimeWhateverTheHostHeapAndPathsAre) {
  if (test::too_big_for_thread_sanitizer(GetParam().workload)) GTEST_SKIP() << "too many mappings under TSan";
  workload& w = find_workload(GetParam().workload);
  const sim::picos first = timed_run(w, GetParam().s, "run");
  std::vector<std::unique_ptr<char[]>> noise;  // the heap differs for the second run
  for (unsigned i = 0; i < 9; ++i) noise.push_back(std::make_unique<char[]>(40 + 1000 * i));
  const sim::picos second = timed_run(w, GetParam().s, std::string(57, 'x'));
  EXPECT_EQ(first, second);
}

// Loads run ahead of their warp's issue (the default) or each waits for
// its issue: the workloads' loads do not race with stores, so the
// simulated time is the same (docs/sim.md, Speed).
TEST_P(TimedDeterminism, RunAheadLoadsTakeTheSameTimeAsLoadsThatWaitForTheirIssue) {
  if (test::too_big_for_thread_sanitizer(GetParam().workload)) GTEST_SKIP() << "too many mappings under TSan";
  workload& w = find_workload(GetParam().workload);
  ASSERT_NE(sim::sim_config{}.sched.run_ahead, 0u);
  EXPECT_EQ(timed_run(w, GetParam().s, "ahead"), timed_run(w, GetParam().s, "issued", 0));
}

INSTANTIATE_TEST_SUITE_P(EveryWorkload, TimedDeterminism, testing::ValuesIn(test::every_workload_in_both_styles()),
                         test::case_name);

}  // namespace
