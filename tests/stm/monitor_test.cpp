// The bandwidth monitor's switching, on a clock the test moves.
#include <gtest/gtest.h>

#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
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

// With published counters (kernels on a GPU) the monitor reads those, not
// the counters, and a value older than one it saw (two publishing stores
// landed out of order) counts as no progress rather than wrapping around.
TEST(BandwidthMonitor, ReadsPublishedCountersAndNeverGoesBackwards) {
  fixture f;
  std::vector<std::uint64_t> published(2 * stm::published_per_block, 0);
  stm::tx_shared s = f.s();
  s.published = published.data();
  stm::bandwidth_monitor m(s, 2, {100e6, 1'000'000, 5}, [&] { return f.now; });
  f.persist(0, 10'000'000);  // only the counters: not seen
  f.now += 1'000'000;
  (void)m.step();
  EXPECT_EQ(f.helpers_on, 0u);
  published[1] = 150'000 / 8;  // block 0's log entries: 150 MB/s
  f.now += 1'000'000;
  (void)m.step();
  EXPECT_EQ(f.helpers_on, 1u);
  published[1] = 100'000 / 8;  // an older store landing last
  for (int slice = 1; slice <= 5; ++slice) {
    f.now += 1'000'000;
    (void)m.step();
  }
  EXPECT_EQ(f.helpers_on, 0u) << "a step back must not read as a huge rate";
  ASSERT_EQ(m.switches().size(), 2u);
  EXPECT_DOUBLE_EQ(m.global_rate(), 0.0);
}

// Each block's counter increments, publishing at every crossing of a
// multiple of publish_every (64).
struct counting_kernel {
  template <class Ctx>
  void operator()(Ctx& t, stm::tx_shared s, std::uint32_t times, std::uint64_t n) const {
    for (std::uint32_t i = 0; i < times; ++i) stm::count(t, s, t.thread_rank() % 2 ? stm::count_drained : stm::count_log_entries, n);
    for (std::uint32_t i = 0; i < times; ++i) stm::count(t, s, stm::count_commits, 1);  // never published
  }
};

TEST(PublishedCounters, StoredAtEveryCrossingOfPublishEvery) {
  const std::uint32_t blocks = 3;
  std::vector<std::uint64_t> counters(blocks * stm::counters_per_block, 0), published(blocks * stm::published_per_block, 0);
  stm::tx_shared s;
  s.counters = counters.data();
  s.published = published.data();
  cpu::executor ex({.workers = 1});
  // One thread per counter and block: each publishes exactly at its crossings.
  ex.launch({dim3(blocks), dim3(2), 0, "counting"}, counting_kernel{}, s, 100u, std::uint64_t(3));
  for (std::uint32_t b = 0; b < blocks; ++b) {
    const std::uint64_t* row = counters.data() + b * stm::counters_per_block;
    EXPECT_EQ(row[stm::count_log_entries], 300u);
    EXPECT_EQ(row[stm::count_drained], 300u);
    // 300 = 4 * 64 + 44: the last crossing was past 256, by the add 255 -> 258.
    EXPECT_EQ(published[b * stm::published_per_block + 0], 258u) << "block " << b;
    EXPECT_EQ(published[b * stm::published_per_block + 1], 258u) << "block " << b;
  }
}

}  // namespace
