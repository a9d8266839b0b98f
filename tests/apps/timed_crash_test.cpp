// Crashes in the timed mode: SBRP's six workloads run once each on the
// simulated GPU (in both styles, on the hardware of their model) with
// their PM writes followed to durability; the NVM's contents at many
// simulated times are written as the pool files, and each must recover and
// verify (docs/sim-persistency.md, "Crash images").
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
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

struct timed_case {
  std::string workload;
  style s;
};

std::string case_name(const testing::TestParamInfo<timed_case>& i) {
  std::string n = i.param.workload + "_" + std::string(to_string(i.param.s));
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

std::vector<timed_case> every_workload() {
  std::vector<timed_case> v;
  for (const auto& w : all_workloads())
    for (style s : {style::epoch, style::sbrp}) v.push_back({std::string(w->name()), s});
  return v;
}

class TimedCrash : public testing::TestWithParam<timed_case> {};

TEST_P(TimedCrash, TheNVMAtAnyCycleRecoversAndVerifies) {
  workload& w = find_workload(GetParam().workload);
  scratch_dir dir;
  const fs::path run_dir = dir / "run", crashed = dir / "crashed";
  sim::sim_config c;
  if (GetParam().s == style::sbrp) c.persist.model = sim::persist_model::sbrp;
  sim::gpu_model gpu(c);
  sim::durability_tracker tracker(c.l1.line, c.l1.sector);
  gpu.track_durability(&tracker);
  {
    const sim::canonical_kernel_memory placement;  // the same cycles whatever the heap holds
    cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
    w.run({ex, run_dir, pm::durability::none}, resolve_params(w, w.small_params()), GetParam().s);
  }
  ASSERT_EQ(tracker.waiting(), 0u) << "PM writes the model never issued or never wrote back";
  ASSERT_EQ(tracker.log().pieces_not_durable(), 0u);
  const sim::picos end = gpu.totals().end;
  ASSERT_GT(end, 0u);

  // The images change only when a write becomes durable: a crash at each
  // such time (up to GPMX_TIMED_CRASH_IMAGES of them, evenly chosen;
  // default 48), at time 0 and past the end.
  const std::vector<sim::picos> times = tracker.log().durable_times();
  const char* most_text = std::getenv("GPMX_TIMED_CRASH_IMAGES");
  const std::size_t most = std::min<std::size_t>(times.size(), most_text ? std::stoul(most_text) : 48);
  std::vector<sim::picos> crashes = {0, end + 1};
  for (std::size_t k = 0; k < most; ++k) crashes.push_back(times[k * times.size() / most]);
  unsigned repaired = 0;
  for (const sim::picos at : crashes) {
    fs::remove_all(crashed);
    fs::copy(run_dir, crashed, fs::copy_options::recursive);
    std::vector<sim::durable_log::file_image> images = tracker.log().files_at(at);
    for (auto& f : images) f.path = crashed / fs::relative(f.path, run_dir);
    sim::write_images(images);
    cpu::executor ex({.workers = 2});
    const env e{ex, crashed, pm::durability::none};
    try {
      repaired += w.recover(e).repaired ? 1 : 0;
      const verify_report v = w.verify(e);
      EXPECT_TRUE(v.ok) << "crash at " << at << " of " << end << " ps: " << v.detail;
    } catch (const std::exception& x) {
      ADD_FAILURE() << "crash at " << at << " of " << end << " ps: recovery threw: " << x.what();
    }
  }
  // The images differ: recovery had something to repair in some of them.
  EXPECT_GT(repaired, 0u);
}

INSTANTIATE_TEST_SUITE_P(EveryWorkload, TimedCrash, testing::ValuesIn(every_workload()), case_name);

}  // namespace
