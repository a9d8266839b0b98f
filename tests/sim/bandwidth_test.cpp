// Bandwidth and queueing emerge from the servers: streams reach the
// configured device rates, one SM's throughput follows Little's law up to
// its port's rate, and the MSHRs bound the misses in flight.
#include <gtest/gtest.h>

#include "sim/sim_test_util.hpp"

namespace {

using namespace gpmx::sim;
using namespace gpmx::sim::testing;
using gpmx::access_kind;
using gpmx::mem_space;

// Request i streams line i: addresses are never reused.
std::function<warp_request(std::uint32_t, std::uint64_t)> stream(mem_space space, access_kind kind) {
  return [=](std::uint32_t sm, std::uint64_t i) { return whole_line(sm, space, kind, 0x200000000ull + i * 128); };
}

void expect_within_5_percent(double measured, double expected) {
  EXPECT_NEAR(measured, expected, expected * 0.05) << "measured " << measured << " GB/s, expected " << expected;
}

TEST(Bandwidth, StreamingLoadsReachGddrBandwidth) {
  sim_config c;
  memory_system m(c);
  auto r = closed_loop(m, c.sm.count, 64, 200'000, stream(mem_space::global, access_kind::load));
  expect_within_5_percent(r.gbs(), c.gddr.bandwidth_gbs);
  EXPECT_EQ(m.stats().gddr_read_bytes, r.bytes);
}

TEST(Bandwidth, DoublingGddrBandwidthHalvesTheStreamingTime) {
  sim_config c;
  memory_system m1(c);
  auto r1 = closed_loop(m1, c.sm.count, 64, 200'000, stream(mem_space::global, access_kind::load));
  set_parameter(c, "gddr.bandwidth_gbs", "672");
  memory_system m2(c);
  auto r2 = closed_loop(m2, c.sm.count, 64, 200'000, stream(mem_space::global, access_kind::load));
  double ratio = double(r2.last_done - r2.first_issue) / double(r1.last_done - r1.first_issue);
  EXPECT_NEAR(ratio, 0.5, 0.025);
}

TEST(Bandwidth, PmNearReadsReachNvmReadBandwidth) {
  sim_config c = named_config("sbrp-table1-near");
  memory_system m(c);
  auto r = closed_loop(m, c.sm.count, 32, 100'000, stream(mem_space::pm, access_kind::load));
  expect_within_5_percent(r.gbs(), c.nvm.read_gbs);
}

TEST(Bandwidth, PmFarReadsAreLimitedByPcie) {
  sim_config c = named_config("sbrp-table1");
  ASSERT_LT(c.pcie.bandwidth_gbs, c.nvm.read_gbs);
  memory_system m(c);
  auto r = closed_loop(m, c.sm.count, 32, 50'000, stream(mem_space::pm, access_kind::load));
  expect_within_5_percent(r.gbs(), c.pcie.bandwidth_gbs);
}

TEST(Bandwidth, StreamingPmWritesThatEvictReachNvmWriteBandwidth) {
  sim_config c = named_config("sbrp-table1-near");
  memory_system m(c);
  // Each SM stores line after line, the next store when the last is
  // accepted. The first ~5 MB fill the L1s and the L2 without writing to the
  // NVM, so the second half of the run (the steady state) is measured.
  const std::uint64_t total = 400'000;
  auto r = closed_loop(m, c.sm.count, 1, total, stream(mem_space::pm, access_kind::store), total / 2);
  expect_within_5_percent(r.gbs(), c.nvm.write_gbs);
  EXPECT_GT(m.stats().nvm_write_bytes, total / 2 * 128);
  EXPECT_EQ(m.stats().nvm_read_bytes, 0u) << "stores validate whole sectors without fetching them";
}

TEST(LittlesLaw, OneSmThroughputIsOutstandingOverLatencyUpToThePort) {
  sim_config c;
  const double bytes = 128;
  const double latency = gddr_ps(c, bytes);
  const double port_gbs = per_cycle_gbs(c, c.icnt.port_bytes_per_cycle);
  for (std::uint32_t k : {1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u, 256u}) {
    memory_system m(c);
    auto r = closed_loop(m, 1, k, std::max<std::uint64_t>(4000, 50ull * k),
                         stream(mem_space::global, access_kind::load));
    const double little = k * bytes / latency * 1000.0;  // GB/s
    const double expected = std::min(little, port_gbs);
    EXPECT_NEAR(r.gbs(), expected, expected * 0.05) << k << " outstanding";
  }
}

TEST(Mshrs, AThirdMissWaitsForTheFirstWithTwoMshrs) {
  sim_config c;
  set_parameter(c, "l1.mshrs", "2");
  memory_system m(c);
  picos d[3];
  for (int i = 0; i < 3; ++i)
    d[i] = m.access(one_lane(0, mem_space::global, access_kind::load, 0x100000 + 4096 * i), 0).done;
  const double miss = gddr_ps(c, c.l1.sector);
  EXPECT_NEAR(double(d[0]), miss, miss * 0.05);
  EXPECT_NEAR(double(d[1]), miss, miss * 0.05);
  EXPECT_GE(double(d[2]), double(d[0]) + miss - l1_hit_ps(c) - 1);
  EXPECT_EQ(m.stats().mshr_waits, 1u);

  set_parameter(c, "l1.mshrs", "3");
  memory_system three(c);
  picos last = 0;
  for (int i = 0; i < 3; ++i)
    last = three.access(one_lane(0, mem_space::global, access_kind::load, 0x100000 + 4096 * i), 0).done;
  EXPECT_NEAR(double(last), miss, miss * 0.05);
  EXPECT_EQ(three.stats().mshr_waits, 0u);
}

TEST(Mshrs, MissesToALineInFlightMergeWithoutAnMshr) {
  sim_config c;
  set_parameter(c, "l1.mshrs", "1");
  memory_system m(c);
  picos a = m.access(one_lane(0, mem_space::global, access_kind::load, 0x100000), 0).done;
  picos b = m.access(one_lane(0, mem_space::global, access_kind::load, 0x100004), 0).done;
  EXPECT_EQ(a, b);
  EXPECT_EQ(m.stats().l1[0][0].pending_hits, 1u);
  EXPECT_EQ(m.stats().mshr_waits, 0u);
}

}  // namespace
