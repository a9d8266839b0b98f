#include "gpmx/sim/memory_system.hpp"

#include <gtest/gtest.h>

#include "sim/sim_test_util.hpp"

namespace {

using namespace gpmx::sim;
using namespace gpmx::sim::testing;
using gpmx::access_kind;
using gpmx::mem_space;

constexpr unsigned global = 0, pm = 1, load = 0, store = 1, atomic = 2;

TEST(MemorySystem, CoalescingCountsLinesAndSectors) {
  memory_system m{sim_config{}};
  auto r = m.access(whole_line(0, mem_space::global, access_kind::load, 0x4000), 0);
  EXPECT_EQ(r.lines, 1u);
  EXPECT_EQ(r.sectors, 4u);
  warp_request strided = whole_line(0, mem_space::global, access_kind::load, 0);
  for (unsigned i = 0; i < 32; ++i) strided.lanes[i].addr = 0x8000 + 128 * i;
  r = m.access(strided, 0);
  EXPECT_EQ(r.lines, 32u);
  EXPECT_EQ(r.sectors, 32u);
  EXPECT_EQ(m.stats().sectors_requested, 36u);
  EXPECT_EQ(m.stats().line_requests, 33u);
}

TEST(MemorySystem, StoreThenLoadHitsTheL1AndFlushWritesTheLineBack) {
  sim_config c;
  memory_system m(c);
  auto s = m.access(whole_line(3, mem_space::global, access_kind::store, 0x4000), 0);
  EXPECT_NEAR(double(s.done), l1_hit_ps(c), 1.0) << "a write-back L1 accepts the store";
  auto l = m.access(whole_line(3, mem_space::global, access_kind::load, 0x4000), s.done);
  EXPECT_EQ(l.done - s.done, picos(cycles_to_picos(c.l1.latency, c.clock.core_mhz)));
  EXPECT_EQ(m.stats().l1[global][store].misses, 1u);
  EXPECT_EQ(m.stats().l1[global][load].hits, 1u);
  EXPECT_EQ(m.stats().l1_to_l2_bytes, 0u);

  picos flushed = m.flush_l1(3, 1'000'000);
  EXPECT_EQ(m.stats().l1_to_l2_bytes, 128u);
  EXPECT_EQ(m.stats().l1_writebacks, 1u);
  // The write-back crosses the port and the interconnect, is written at the
  // bank, and is acknowledged back across the interconnect.
  const double ack = transfer_ps(128, per_cycle_gbs(c, c.icnt.port_bytes_per_cycle)) + cycles_ps(c, c.icnt.latency) +
                     transfer_ps(128, per_cycle_gbs(c, c.l2.bank_bytes_per_cycle)) + cycles_ps(c, c.l2.latency) +
                     cycles_ps(c, c.icnt.latency);
  EXPECT_NEAR(double(flushed - 1'000'000), ack, 2.0);
  EXPECT_EQ(m.flush_l1(3, 2'000'000), 2'000'000u) << "nothing dirty is left";
  EXPECT_EQ(m.stats().gddr_write_bytes, 0u) << "the L2 keeps the line";
}

TEST(MemorySystem, APmLineWritesThroughTheL2AndIsAcknowledgedWhenDurable) {
  for (const pm_location where : {pm_location::near, pm_location::far}) {
    sim_config c;
    c.pm.location = where;
    c.persist.domain = durable_point::media;
    memory_system m(c);
    m.access(whole_line(3, mem_space::pm, access_kind::store, 0x4000), 0);
    const picos flushed = m.flush_l1(3, 1'000'000);
    EXPECT_EQ(m.stats().nvm_write_bytes, 128u);
    EXPECT_EQ(m.stats().pm_line_writes, 1u);
    EXPECT_EQ(m.pm_durable(3), flushed);
    const bool far = where == pm_location::far;
    // To the L2 as a volatile write-back, on to the NVM (across PCIe and
    // the host when far), and the acknowledgement back (across PCIe when far).
    const double ack = transfer_ps(128, per_cycle_gbs(c, c.icnt.port_bytes_per_cycle)) + cycles_ps(c, c.icnt.latency) +
                       transfer_ps(128, per_cycle_gbs(c, c.l2.bank_bytes_per_cycle)) + cycles_ps(c, c.l2.latency) +
                       (far ? transfer_ps(128, c.pcie.bandwidth_gbs) + 2 * c.pcie.latency_ns * 1000 +
                                  c.host.llc_latency_ns * 1000
                            : 0.0) +
                       transfer_ps(128, c.nvm.write_gbs) + c.nvm.latency_ns * 1000 + cycles_ps(c, c.icnt.latency);
    EXPECT_NEAR(double(flushed - 1'000'000), ack, 3.0) << to_string(where);
  }
}

TEST(MemorySystem, DrainFlushesEverySmsL1) {
  memory_system m{sim_config{}};
  for (std::uint32_t sm = 0; sm < 4; ++sm)
    for (std::uint64_t i = 0; i < 10; ++i)
      m.access(whole_line(sm, mem_space::global, access_kind::store, 0x100000 * (sm + 1) + 128 * i), 0);
  picos done = m.drain(100'000);
  EXPECT_GT(done, 100'000u);
  EXPECT_EQ(m.stats().l1_writebacks, 40u);
  EXPECT_EQ(m.stats().l1_to_l2_bytes, 40u * 128);
  EXPECT_EQ(m.drain(done), done);
}

TEST(MemorySystem, DirtyL1VictimIsWrittenBack) {
  sim_config c;
  set_parameter(c, "l1.size", "1K");  // 8 lines
  memory_system m(c);
  for (std::uint64_t i = 0; i < 9; ++i) m.access(whole_line(0, mem_space::global, access_kind::store, 128 * i), 0);
  EXPECT_EQ(m.stats().l1_writebacks, 1u);
  EXPECT_EQ(m.stats().l1_to_l2_bytes, 128u);
}

TEST(MemorySystem, WriteThroughStoresAreAcknowledgedByTheL2) {
  sim_config c;
  set_parameter(c, "l1.write_policy", "through");
  memory_system m(c);
  auto s = m.access(one_lane(0, mem_space::global, access_kind::store, 0x4000), 0);
  const double expected = l2_hit_ps(c, c.l1.sector);
  EXPECT_NEAR(double(s.done), expected, expected * 0.05);
  EXPECT_EQ(m.stats().l1_to_l2_bytes, 32u);
  EXPECT_EQ(m.drain(s.done), s.done) << "a write-through L1 holds nothing dirty";
}

TEST(MemorySystem, DeviceScopeAtomicsExecuteAtTheL2AndSerialize) {
  sim_config c;
  memory_system m(c);
  warp_request r = one_lane(0, mem_space::global, access_kind::store, 0x4000);
  r.atomic = true;
  m.access(one_lane(1, mem_space::global, access_kind::load, 0x4000), 0);  // the line is now in the L2
  const picos t0 = 10'000'000;
  auto a = m.access(r, t0);
  const double expected = l2_hit_ps(c, c.l1.sector) + cycles_ps(c, c.l2.atomic_cycles);
  EXPECT_NEAR(double(a.done - t0), expected, 2.0);
  EXPECT_EQ(m.stats().l2[global][atomic].hits, 1u);

  // 32 lanes on one address: 32 passes of the atomic unit.
  warp_request same = r;
  same.active = 0xffffffffu;
  for (auto& lane : same.lanes) lane = {0x4000, 4};
  const picos t1 = 20'000'000;
  auto b = m.access(same, t1);
  EXPECT_NEAR(double(b.done - t1), expected + cycles_ps(c, 31.0 * c.l2.atomic_cycles), 2.0);

  // 32 lanes loading one address atomically (a device-scope acquire's
  // flag): one pass, as one load.
  warp_request loads = same;
  loads.kind = access_kind::load;
  loads.read_modify_write = false;
  const picos t2 = 30'000'000;
  auto l = m.access(loads, t2);
  EXPECT_NEAR(double(l.done - t2), expected, 2.0);
}

TEST(MemorySystem, SystemScopeAtomicsOnFarPmCrossPcie) {
  sim_config c = named_config("sbrp-table1");
  memory_system m(c);
  warp_request r = one_lane(0, mem_space::pm, access_kind::store, 0x4000);
  r.atomic = true;
  r.atomic_scope = gpmx::scope::system;
  auto a = m.access(r, 0);
  const double expected = cycles_ps(c, c.l1.latency) + transfer_ps(32, per_cycle_gbs(c, c.icnt.port_bytes_per_cycle)) +
                          cycles_ps(c, c.icnt.latency) + 2 * (transfer_ps(32, c.pcie.bandwidth_gbs) +
                                                              c.pcie.latency_ns * 1000) +
                          c.host.llc_latency_ns * 1000 + cycles_ps(c, c.icnt.latency);
  EXPECT_NEAR(double(a.done), expected, 3.0);
  EXPECT_EQ(m.stats().host_atomics, 1u);
  EXPECT_EQ(m.stats().pcie_to_host_bytes, 32u);
}

TEST(MemorySystem, SharedAccessesCostLatencyPlusConflicts) {
  sim_config c;
  memory_system m(c);
  warp_request r = whole_line(0, mem_space::shared, access_kind::load, 0);
  EXPECT_EQ(m.access(r, 0).done, cycles_to_picos(c.shared.latency, c.clock.core_mhz));
  for (unsigned i = 0; i < 32; ++i) r.lanes[i].addr = 128 * i;  // all in bank 0
  const picos t = 1'000'000;
  EXPECT_EQ(m.access(r, t).done - t, cycles_to_picos(c.shared.latency + 31, c.clock.core_mhz));
  EXPECT_EQ(m.stats().shared_accesses, 2u);
  EXPECT_EQ(m.stats().shared_conflict_cycles, 31u);
  EXPECT_EQ(m.stats().line_requests, 0u);
}

TEST(MemorySystem, MissesGoWhereTheSpacesDataLives) {
  memory_system m{named_config("sbrp-table1-near")};
  m.access(one_lane(0, mem_space::global, access_kind::load, 0x10000), 0);
  m.access(one_lane(0, mem_space::pm, access_kind::load, 0x20000), 0);
  EXPECT_EQ(m.stats().gddr_read_bytes, 32u);
  EXPECT_EQ(m.stats().nvm_read_bytes, 32u);
  EXPECT_EQ(m.stats().l1[global][load].misses, 1u);
  EXPECT_EQ(m.stats().l1[pm][load].misses, 1u);
}

TEST(MemorySystem, StatsAsJsonAndTable) {
  memory_system m{sim_config{}};
  m.access(whole_line(0, mem_space::global, access_kind::load, 0x4000), 0);
  const std::string j = to_json(m.stats());
  for (const char* key : {"\"l1\"", "\"l2\"", "\"global\"", "\"pm\"", "\"atomic\"", "\"gddr_read\": 128",
                          "\"bandwidth_over_time\"", "\"bucket_ps\": 1000000", "\"shared\""})
    EXPECT_NE(j.find(key), std::string::npos) << key << " in " << j;
  EXPECT_EQ(j.front(), '{');
  EXPECT_EQ(j.back(), '}');
  EXPECT_NE(format_table(m.stats()).find("bytes GDDR read"), std::string::npos);
  m.reset_stats();
  EXPECT_EQ(m.stats().gddr_read_bytes, 0u);
  EXPECT_TRUE(m.stats().gddr_bw.buckets().empty());
  m.access(whole_line(0, mem_space::global, access_kind::load, 0x8000), 0);
  EXPECT_EQ(m.stats().gddr_read_bytes, 128u) << "the series still record after a reset";
  EXPECT_FALSE(m.stats().gddr_bw.buckets().empty());
}

TEST(MemorySystem, SameRequestsGiveTheSameTimesAndStats) {
  auto run = [](memory_system& m) {
    std::vector<picos> done;
    std::uint64_t x = 12345;
    picos t = 0;
    for (int i = 0; i < 20000; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      warp_request r = whole_line(std::uint32_t(x >> 59) % 30, (x >> 20) & 1 ? mem_space::pm : mem_space::global,
                                  (x >> 21) & 1 ? access_kind::store : access_kind::load, ((x >> 24) % 50000) * 128);
      r.atomic = ((x >> 30) & 15) == 0;
      r.active = std::uint32_t(x >> 32) | 1u;
      t += (x >> 40) % 2000;
      done.push_back(m.access(r, t).done);
    }
    done.push_back(m.drain(t));
    return done;
  };
  memory_system a{sim_config{}}, b{sim_config{}};
  EXPECT_EQ(run(a), run(b));
  EXPECT_EQ(to_json(a.stats()), to_json(b.stats()));
}

TEST(MemorySystem, RefusesAnSmOutOfRangeAndABadConfiguration) {
  memory_system m{sim_config{}};
  EXPECT_THROW(m.access(one_lane(30, mem_space::global, access_kind::load, 0), 0), gpmx::error);
  sim_config c;
  c.gddr.bandwidth_gbs = 0;
  EXPECT_THROW(memory_system{c}, config_error);
}

}  // namespace
