// BLK: prices against double-precision Black-Scholes (tolerance: the kernel
// is float with a 7-digit normal CDF), both styles, corruption, parameters.
#include "blk/blk.hpp"

#include <cmath>

#include "checkpointed_checks.hpp"
#include "workload_harness.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

TEST(Blk, PricesMatchDoublePrecisionBlackScholes) {
  blk::blk_app a(4096, 3);
  cpu::executor ex({.workers = 2});
  for (std::uint64_t it = 0; it < 5; ++it) a.step(ex, it);
  for (std::uint64_t i = 0; i < 4096; ++i) {
    const auto want = blk::black_scholes_reference(a.spot[i], a.strike[i], a.expiry_at(i, 4), blk::risk_free,
                                                   blk::volatility);
    // Absolute 1e-3 of the strike plus 1e-4 relative: float rounding and
    // the polynomial normal CDF (error about 7.5e-8).
    const double tol = 1e-3 * double(a.strike[i]) + 1e-4 * want.call;
    ASSERT_NEAR(a.call[i], want.call, tol) << "option " << i;
    ASSERT_NEAR(a.put[i], want.put, 1e-3 * double(a.strike[i]) + 1e-4 * want.put) << "option " << i;
  }
}

TEST(Blk, ResumedFromAnyIterationEqualsTheUninterruptedRunBitwise) {
  cpu::executor ex({.workers = 2});
  blk::blk_app whole(1000, 5), resumed(1000, 5);
  for (std::uint64_t it = 0; it < 8; ++it) whole.step(ex, it);
  for (std::uint64_t it = 0; it < 3; ++it) resumed.step(ex, it);
  blk::blk_app restarted(1000, 5);  // a restart: the state copied back, then on from 3
  restarted.spot = resumed.spot, restarted.call = resumed.call, restarted.put = resumed.put;
  for (std::uint64_t it = 3; it < 8; ++it) restarted.step(ex, it);
  EXPECT_EQ(std::memcmp(whole.call.data(), restarted.call.data(), 4000), 0);
  EXPECT_EQ(std::memcmp(whole.spot.data(), restarted.spot.data(), 4000), 0);
}

TEST(Blk, RunVerifiesInBothStyles) { test::expect_verifies_in_both_styles("blk"); }
TEST(Blk, VerifyCatchesACorruptedPrice) { test::expect_corruption_caught("blk", 1, 17, "call"); }
TEST(Blk, BadParametersAreRejected) {
  test::expect_rejected("blk", "options", 0);
  test::expect_rejected("blk", "interval", 0);
  test::expect_rejected("blk", "iterations", 0);
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(BlkSeededBug, FlipBeforeCopyRunVerifies) { test::expect_seeded_bug_run_verifies("blk", "flip-before-copy"); }

}  // namespace
