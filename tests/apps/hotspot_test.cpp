// HotSpot: the kernel against the host step (bitwise: the same float
// expression, no reduction), both styles, corruption, parameters.
#include "hotspot/hotspot.hpp"

#include "checkpointed_checks.hpp"
#include "workload_harness.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

TEST(Hotspot, KernelStepsEqualTheHostReferenceBitwise) {
  hotspot::hotspot_app a(37, 53, 2);
  std::vector<float> ref(a.temp.begin(), a.temp.end()), tmp(ref.size());
  cpu::executor ex({.workers = 2});
  for (std::uint64_t it = 0; it < 4; ++it) {
    a.step(ex, it);
    hotspot::reference_step(a.c, a.rows, a.cols, a.power, ref, tmp);
    hotspot::reference_step(a.c, a.rows, a.cols, a.power, tmp, ref);
  }
  ASSERT_EQ(std::memcmp(a.temp.data(), ref.data(), ref.size() * 4), 0);
  // The chip heats up under its power map and stays physical.
  for (float t : a.temp) ASSERT_TRUE(t > 79.0f && t < 500.0f) << t;
}

TEST(Hotspot, RunVerifiesInBothStyles) { test::expect_verifies_in_both_styles("hotspot"); }
TEST(Hotspot, VerifyCatchesACorruptedTemperature) { test::expect_corruption_caught("hotspot", 0, 100, "temperature"); }
TEST(Hotspot, BadParametersAreRejected) {
  test::expect_rejected("hotspot", "rows", 0);
  test::expect_rejected("hotspot", "cols", 1u << 20);
  test::expect_rejected("hotspot", "interval", 0);
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(HotspotSeededBug, FlipBeforeCopyRunVerifies) {
  test::expect_seeded_bug_run_verifies("hotspot", "flip-before-copy");
}

}  // namespace
