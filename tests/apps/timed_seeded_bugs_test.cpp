// Seeded bugs in the timed mode: each workload's seeded bugs (docs/check.md)
// run on the simulated hardware of their model, and crash images at many
// cycles are recovered and verified. A bug shows where the hardware makes
// the stores its missing order should have held back durable early enough
// for some image to fail; which bugs show is recorded here and in
// docs/sim-persistency.md ("Seeded bugs in the timed mode").
#include <gtest/gtest.h>

#include <filesystem>
#include <cstdlib>
#include <iostream>
#include <set>
#include <string>

#include "common/registry.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/durability_tracker.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;
namespace fs = std::filesystem;

struct bug_case {
  std::string workload, bug;
};

std::string case_name(const testing::TestParamInfo<bug_case>& i) {
  std::string n = i.param.workload + "_" + i.param.bug;
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
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
  workload& w = find_workload(GetParam().workload);
  const seeded_bug bug = find_seeded_bug(w, GetParam().bug);
  scratch_dir dir;
  const fs::path run_dir = dir / "run", crashed = dir / "crashed";
  sim::sim_config c;
  sim::set_parameter(c, "persist.model", bug.s == style::sbrp ? "sbrp" : "epoch");
  // Other hardware to try (comma-separated KEY=VALUE): not the default, so
  // the expectations below may not hold under it.
  if (const char* more = std::getenv("GPMX_TIMED_BUG_SET")) {
    std::string rest = more;
    for (std::size_t at = 0; at <= rest.size();) {
      const std::size_t comma = std::min(rest.find(',', at), rest.size());
      if (comma > at) sim::apply_setting(c, rest.substr(at, comma - at));
      at = comma + 1;
    }
  }
  sim::gpu_model gpu(c);
  sim::durability_tracker tracker(c.l1.line, c.l1.sector);
  gpu.track_durability(&tracker);
  {
    const sim::canonical_kernel_memory placement;  // the same cycles whatever the heap holds
    cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
    env e{ex, run_dir, pm::durability::none};
    e.bug = bug.name;
    w.run(e, resolve_params(w, w.small_params()), bug.s);
  }
  const sim::picos end = gpu.totals().end;
  // Every distinct image the run left (a crash just as each write became
  // durable), at most `most` of them, evenly chosen.
  const std::vector<sim::picos> times = tracker.log().durable_times();
  const std::size_t most = std::getenv("GPMX_TIMED_BUG_IMAGES") ? std::stoul(std::getenv("GPMX_TIMED_BUG_IMAGES")) : 256;
  const std::size_t points = std::min(times.size(), most);
  unsigned failed = 0;
  std::string first;
  for (std::size_t k = 0; k < points; ++k) {
    const sim::picos at = times[k * times.size() / points];
    fs::remove_all(crashed);
    fs::copy(run_dir, crashed, fs::copy_options::recursive);
    std::vector<sim::durable_log::file_image> images = tracker.log().files_at(at);
    for (auto& f : images) f.path = crashed / fs::relative(f.path, run_dir);
    sim::write_images(images);
    cpu::executor ex({.workers = 2});
    const env e{ex, crashed, pm::durability::none};
    std::string why;
    try {
      w.recover(e);
      const verify_report v = w.verify(e);
      if (!v.ok) why = v.detail;
    } catch (const std::exception& x) {
      why = std::string("recovery threw: ") + x.what();
    }
    if (why.empty()) continue;
    if (failed++ == 0) first = "crash at " + std::to_string(at) + " of " + std::to_string(end) + " ps: " + why;
  }
  std::cout << "[ timed bug ] " << GetParam().workload << " " << bug.name << ": " << failed << " of " << points
            << " images fail (of " << times.size() << " distinct)" << (first.empty() ? "" : "; first: " + first) << "\n";
  if (std::getenv("GPMX_TIMED_BUG_SET")) return;  // other hardware: nothing expected
  const std::string key = GetParam().workload + " " + bug.name;
  if (rare.count(key)) return;
  if (shows.count(key)) EXPECT_GT(failed, 0u) << "the bug no longer shows in the timed mode";
  else EXPECT_EQ(failed, 0u) << "the bug now shows in the timed mode: " << first << " (add it to the list and docs)";
}

INSTANTIATE_TEST_SUITE_P(EveryBug, TimedSeededBug, testing::ValuesIn(every_bug()), case_name);

}  // namespace
