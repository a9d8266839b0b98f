// The bandwidth monitor's switching, on a clock the test moves.
#include <gtest/gtest.h>

#include <vector>

#include "gpmx/stm/bandwidth_monitor.hpp"

namespace {
using namespace gpmx;

struct fixture {
  std::vector<std::uint64_t> counters = std::vector<std::uint64_t>(2 * stm::counters_per_block, 0);
  std::uint32_t helpers_on = 0;
  std::uint64_t now = 0;
  stm::tx_shared s() {
    stm::tx_shared x;
    x.counters = counters.data();
    x.helpers_on = &helpers_on;
    return x;
  }
  // Block b persists `bytes` more bytes of log.
  void persist(std::uint32_t b, std::uint64_t bytes) { counters[b * stm::counters_per_block + stm::count_log_entries] += bytes / 8; }
};

TEST(BandwidthMonitor, OnAtOnceAboveTheThresholdOffAfterFiveSlicesBelow) {
  fixture f;
  stm::bandwidth_monitor m(f.s(), 2, {100e6, 1'000'000, 5}, [&] { return f.now; });
  // 1 ms slices; 100 MB/s is 100,000 bytes per slice.
  f.now += 500'000;
  EXPECT_EQ(m.step(), agent::step_result::idle);  // mid-slice: nothing measured
  f.persist(0, 80'000);
  f.persist(1, 40'000);  // 120 MB/s together
  f.now += 500'000;
  EXPECT_EQ(m.step(), agent::step_result::progressed);
  EXPECT_EQ(f.helpers_on, 1u);
  for (int slice = 1; slice <= 5; ++slice) {
    f.persist(0, 10'000);
    f.now += 1'000'000;
    (void)m.step();
    EXPECT_EQ(f.helpers_on, slice < 5 ? 1u : 0u) << "slice " << slice;
  }
  ASSERT_EQ(m.switches().size(), 2u);
  EXPECT_TRUE(m.switches()[0].on);
  EXPECT_FALSE(m.switches()[1].on);
}

TEST(BandwidthMonitor, ASliceAboveResetsTheCountBelow) {
  fixture f;
  stm::bandwidth_monitor m(f.s(), 2, {100e6, 1'000'000, 5}, [&] { return f.now; });
  f.persist(0, 200'000);
  f.now += 1'000'000;
  (void)m.step();
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 4; ++i) {
      f.now += 1'000'000;
      (void)m.step();
    }
    f.persist(1, 200'000);
    f.now += 1'000'000;
    (void)m.step();
  }
  EXPECT_EQ(f.helpers_on, 1u);
  EXPECT_EQ(m.switches().size(), 1u);
}

}  // namespace
