// CFD: the kernel against the host step (bitwise), conservation of mass,
// momentum and energy (tolerance: float rounding over the grid), both
// styles, corruption, parameters.
#include "cfd/cfd.hpp"

#include <cmath>

#include "checkpointed_checks.hpp"
#include "workload_harness.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

TEST(Cfd, KernelStepsEqualTheHostReferenceBitwise) {
  cfd::cfd_app a(40, 24, 3);
  const auto copy = [](const kernel_vector<float>& v) { return std::vector<float>(v.begin(), v.end()); };
  std::vector<float> ref[4] = {copy(a.rho), copy(a.mx), copy(a.my), copy(a.e)};
  std::vector<float> tmp[4] = {copy(a.rho), copy(a.mx), copy(a.my), copy(a.e)};
  cpu::executor ex({.workers = 2});
  for (std::uint64_t it = 0; it < 3; ++it) {
    a.step(ex, it);
    cfd::reference_step(a, ref, tmp);
    cfd::reference_step(a, tmp, ref);
  }
  EXPECT_EQ(std::memcmp(a.rho.data(), ref[0].data(), ref[0].size() * 4), 0);
  EXPECT_EQ(std::memcmp(a.e.data(), ref[3].data(), ref[3].size() * 4), 0);
}

TEST(Cfd, ConservesMassMomentumAndEnergy) {
  cfd::cfd_app a(64, 64, 1);
  const auto before = a.totals();
  cpu::executor ex({.workers = 2});
  for (std::uint64_t it = 0; it < 20; ++it) a.step(ex, it);
  const auto after = a.totals();
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(after[k], before[k], 1e-4 * std::abs(before[k]) + 1e-2) << "quantity " << k;
  for (std::size_t i = 0; i < a.rho.size(); ++i) ASSERT_GT(a.rho[i], 0.0f);
  // Something moved: the bubbles spread.
  cfd::cfd_app fresh(64, 64, 1);
  EXPECT_NE(std::memcmp(fresh.rho.data(), a.rho.data(), a.rho.size() * 4), 0);
}

TEST(Cfd, RunVerifiesInBothStyles) { test::expect_verifies_in_both_styles("cfd"); }
TEST(Cfd, VerifyCatchesACorruptedEnergy) { test::expect_corruption_caught("cfd", 3, 5, "energy"); }
TEST(Cfd, BadParametersAreRejected) {
  test::expect_rejected("cfd", "nx", 2);
  test::expect_rejected("cfd", "ny", 0);
  test::expect_rejected("cfd", "iterations", 0);
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(CfdSeededBug, FlipBeforeCopyRunVerifies) { test::expect_seeded_bug_run_verifies("cfd", "flip-before-copy"); }

}  // namespace
