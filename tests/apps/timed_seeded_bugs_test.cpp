// Seeded bugs in the timed mode: each workload's seeded bugs (docs/check.md)
// run on the simulated hardware of their model, and crash images at many
// cycles are recovered and verified. A bug shows where the hardware makes
// the stores its missing order should have held back durable early enough
// for some image to fail; which bugs show is recorded here and in
// docs/sim-persistency.md ("Seeded bugs in the timed mode").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <set>
#include <ostream>
#include <string>
#include <vector>

#include "timed_images.hpp"
#include "workload_cases.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

struct bug_case {
  std::string workload, bug;
};

// So that gtest's and ctest's listings show the case, not its bytes.
void PrintTo(const bug_case& c, std::ostream* os) { *os << c.workload << " " << c.bug; }

std::string case_name(const testing::TestParamInfo<bug_case>& i) {
  return test::test_name(i.param.workload + "_" + i.param.bug);
}

std::vector<bug_case> every_bug() {
  std::vector<bug_case> v;
  for (const auto& w : all_workloads())
    for (const seeded_bug& b : w->seeded_bugs()) v.push_back({std::string(w->name()), b.name});
  return v;
}

// What the bugs do on the default hardware of their model (sbrp-table1,
// PM-far) at test sizes, measured over every distinct image
// (GPMX_TIMED_BUG_IMAGES=100000); docs/sim-persistency.md says why the
// hidden ones stay hidden. "rare": a few images of about a thousand, which
// the default sample of 256 may miss, so not asserted either way.
const std::set<std::string> shows = {"gpdb log-tail-first",        "hashmap log-after-update",
                                     "srad early-coefficients-commit", "bfs no-discovery-persist",
                                     "tx-atm drain-past-clean",    "tx-hash drain-past-clean",
                                     "tx-bvh drain-past-clean"};
const std::set<std::string> rare = {"tx-bvh mark-with-records"};

class TimedSeededBug : public testing::TestWithParam<bug_case> {};

TEST_P(TimedSeededBug, CrashImagesShowTheBugWhereTheHardwareReordersEnough) {
  if (test::too_big_for_thread_sanitizer(GetParam().workload)) GTEST_SKIP() << "too many mappings under TSan";
  workload& w = find_workload(GetParam().workload);
  const seeded_bug bug = find_seeded_bug(w, GetParam().bug);
  sim::sim_config c;
  sim::set_parameter(c, "persist.model", bug.s == style::sbrp ? "sbrp" : "epoch");
  // Other hardware to try (comma-separated KEY=VALUE): not the default, so
  // the expectations below may not hold under it.
  if (const char* more = std::getenv("GPMX_TIMED_BUG_SET")) {
    const std::string rest = more;
    for (std::size_t at = 0; at <= rest.size();) {
      const std::size_t comma = std::min(rest.find(',', at), rest.size());
      if (comma > at) sim::apply_setting(c, rest.substr(at, comma - at));
      at = comma + 1;
    }
  }
  test::timed_images t(w, c);
  t.run(bug.s, bug.name);
  // Every distinct image the run left (a crash just as each write became
  // durable), up to GPMX_TIMED_BUG_IMAGES of them (default 256).
  const std::vector<sim::picos> crashes = t.crash_times("GPMX_TIMED_BUG_IMAGES", 256);
  unsigned failed = 0;
  std::string first;
  for (const sim::picos at : crashes) {
    const auto o = t.recover_image(at);
    if (!o.failure) continue;
    if (failed++ == 0) first = *o.failure;
  }
  std::cout << "[ timed bug ] " << GetParam().workload << " " << bug.name << ": " << failed << " of "
            << crashes.size() << " images fail (of " << t.tracker.log().durable_times().size() << " distinct)"
            << (first.empty() ? "" : "; first: " + first) << "\n";
  if (std::getenv("GPMX_TIMED_BUG_SET")) return;  // other hardware: nothing expected
  if (test::under_thread_sanitizer) return;       // too few images to expect anything
  const std::string key = GetParam().workload + " " + bug.name;
  if (rare.count(key)) return;
  if (shows.count(key)) EXPECT_GT(failed, 0u) << "the bug no longer shows in the timed mode";
  else EXPECT_EQ(failed, 0u) << "the bug now shows in the timed mode: " << first << " (add it to the list and docs)";
}

INSTANTIATE_TEST_SUITE_P(EveryBug, TimedSeededBug, testing::ValuesIn(every_bug()), case_name);

}  // namespace
