#include "gpmx/sim/bandwidth_server.hpp"

#include <gtest/gtest.h>

namespace {

using gpmx::sim::bandwidth_server;
using gpmx::sim::time_series;

TEST(BandwidthServer, IdleServerCostsTransferPlusLatency) {
  bandwidth_server s(1e9, 1000);  // 1 GB/s: 1 byte per ns
  EXPECT_EQ(s.serve(5000, 100), 5000u + 100'000u + 1000u);
}

TEST(BandwidthServer, BackToBackRequestsQueue) {
  bandwidth_server s(1e9, 0);
  EXPECT_EQ(s.serve(0, 10), 10'000u);
  EXPECT_EQ(s.serve(0, 10), 20'000u);
  EXPECT_EQ(s.last_wait(), 10'000u);
  EXPECT_EQ(s.serve(50'000, 10), 60'000u) << "an idle gap is not borrowed";
  EXPECT_EQ(s.bytes(), 30u);
  EXPECT_EQ(s.busy(), 30'000u);
}

TEST(BandwidthServer, FractionalCostsDoNotDrift) {
  bandwidth_server s(28e9, 0);  // 32 bytes take 1142.857 ps
  gpmx::sim::picos done = 0;
  for (int i = 0; i < 1'000'000; ++i) done = s.serve(0, 32);
  const double expected = 32e6 / 28e9 * 1e12;
  EXPECT_NEAR(double(done), expected, expected * 1e-4);
}

TEST(BandwidthServer, BytesOverTimeGoToBuckets) {
  time_series ts(1000);
  bandwidth_server s(1e9, 0);
  s.attach(&ts);
  s.serve(0, 1);
  s.serve(0, 1);
  s.serve(5500, 7);
  ASSERT_EQ(ts.buckets().size(), 6u);
  EXPECT_EQ(ts.buckets()[0], 1u);
  EXPECT_EQ(ts.buckets()[1], 1u);
  EXPECT_EQ(ts.buckets()[5], 7u);
}

}  // namespace
