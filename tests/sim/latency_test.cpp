// A chain of single-lane dependent loads (each issued when the one before it
// completes) measures the configured latency of the level it reaches.
#include <gtest/gtest.h>

#include "sim/sim_test_util.hpp"

namespace {

using namespace gpmx::sim;
using namespace gpmx::sim::testing;
using gpmx::access_kind;
using gpmx::mem_space;

constexpr int chain = 1000;

// Mean time per load of a dependent chain of loads to addr(i).
template <class Addr>
double chase(memory_system& m, std::uint32_t sm, mem_space space, Addr addr) {
  picos t = 0;
  for (int i = 0; i < chain; ++i) t = m.access(one_lane(sm, space, access_kind::load, addr(i)), t).done;
  return double(t) / chain;
}

void expect_within_5_percent(double measured, double expected) {
  EXPECT_NEAR(measured, expected, expected * 0.05) << "measured " << measured << " ps, expected " << expected;
}

// Lines never touched before: every load misses the L1 and the L2. A
// stride of 4 KiB + 128 keeps them apart.
std::uint64_t fresh(int i) { return 0x100000000ull + std::uint64_t(i) * 4224; }

TEST(DependentLoads, L1HitIsTheL1Latency) {
  sim_config c;
  memory_system m(c);
  m.access(one_lane(0, mem_space::global, access_kind::load, 0x1000), 0);  // bring the line in
  picos t0 = m.access(one_lane(0, mem_space::global, access_kind::load, 0x1000), 0).done;
  picos t = t0;
  for (int i = 0; i < chain; ++i)
    t = m.access(one_lane(0, mem_space::global, access_kind::load, 0x1000 + 4 * (i % 8)), t).done;
  expect_within_5_percent(double(t - t0) / chain, l1_hit_ps(c));
  EXPECT_EQ(m.stats().l1[0][0].misses, 1u);
}

TEST(DependentLoads, L2HitIsL1PlusInterconnectPlusL2) {
  sim_config c;
  memory_system m(c);
  // SM 0 brings the lines into the L2; SM 1 misses its own L1 and hits there.
  for (int i = 0; i < chain; ++i) m.access(one_lane(0, mem_space::global, access_kind::load, fresh(i)), 0);
  picos start = 10'000'000;
  picos t = start;
  for (int i = 0; i < chain; ++i) t = m.access(one_lane(1, mem_space::global, access_kind::load, fresh(i)), t).done;
  expect_within_5_percent(double(t - start) / chain, l2_hit_ps(c, c.l1.sector));
  EXPECT_EQ(m.stats().l2[0][0].hits, std::uint64_t(chain));
}

TEST(DependentLoads, GddrMissAddsTheChannel) {
  sim_config c;
  memory_system m(c);
  expect_within_5_percent(chase(m, 0, mem_space::global, fresh), gddr_ps(c, c.l1.sector));
  EXPECT_EQ(m.stats().gddr_read_bytes, std::uint64_t(chain) * c.l1.sector);
}

TEST(DependentLoads, PmNearMissAddsTheNvm) {
  sim_config c = named_config("sbrp-table1-near");
  memory_system m(c);
  expect_within_5_percent(chase(m, 0, mem_space::pm, fresh), pm_near_ps(c, c.l1.sector));
  EXPECT_EQ(m.stats().nvm_read_bytes, std::uint64_t(chain) * c.l1.sector);
  EXPECT_EQ(m.stats().pcie_to_gpu_bytes, 0u);
}

TEST(DependentLoads, PmFarMissCrossesPcieBothWays) {
  sim_config c = named_config("sbrp-table1");
  memory_system m(c);
  expect_within_5_percent(chase(m, 0, mem_space::pm, fresh), pm_far_ps(c, c.l1.sector));
  EXPECT_EQ(m.stats().pcie_to_gpu_bytes, std::uint64_t(chain) * c.l1.sector);
}

TEST(DependentLoads, LatenciesFollowTheConfiguration) {
  // Doubling each level's latency parameter moves the chase by the change.
  sim_config c;
  set_parameter(c, "gddr.latency_ns", "200");
  set_parameter(c, "l2.latency", "320");
  memory_system m(c);
  expect_within_5_percent(chase(m, 0, mem_space::global, fresh), gddr_ps(c, c.l1.sector));
  EXPECT_GT(gddr_ps(c, 32), gddr_ps(sim_config{}, 32) * 1.5);
}

}  // namespace
