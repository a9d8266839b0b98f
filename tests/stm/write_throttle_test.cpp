// The NVRAM throttle's accounting (its waiting is measured by the
// benchmarks, never asserted here).
#include <gtest/gtest.h>

#include "gpmx/pm/errors.hpp"
#include "gpmx/pm/write_throttle.hpp"

namespace {
using gpmx::pm::write_throttle;

TEST(WriteThrottle, ChargesEverySectorARangeTouches) {
  write_throttle t(1e12, 32);
  const auto* base = reinterpret_cast<const std::byte*>(std::uintptr_t(4096));
  EXPECT_EQ(t.sectors_of(base, 4), 1u);        // a scattered word pays a sector
  EXPECT_EQ(t.sectors_of(base, 32), 1u);
  EXPECT_EQ(t.sectors_of(base + 30, 4), 2u);   // straddles two
  EXPECT_EQ(t.sectors_of(base, 256), 8u);      // coalesced: no waste
  EXPECT_EQ(t.sectors_of(base, 0), 0u);
  t.charge_range(base, 256);
  t.charge_range(base + 30, 4);
  EXPECT_EQ(t.charged_bytes(), 10u * 32);
}

TEST(WriteThrottle, RefusesWhatIsNotABandwidthOrASector) {
  EXPECT_THROW(write_throttle(0, 64), gpmx::pm::pm_error);
  EXPECT_THROW(write_throttle(-1, 64), gpmx::pm::pm_error);
  EXPECT_THROW(write_throttle(1e9, 48), gpmx::pm::pm_error);
  EXPECT_THROW(write_throttle(1e9, 4), gpmx::pm::pm_error);
}

}  // namespace
