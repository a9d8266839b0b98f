// The timed mode on PM and under load, end to end: kernels reading a pool
// through pm_span measure the NVM latency near and far and reach the NVM
// and PCIe bandwidths; warps of dependent loads obey Little's law. The
// expected values come from the configuration (sim_test_util.hpp, the sums
// docs/sim-memory.md states), within the 5%.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/pm/view.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "sim/sim_test_util.hpp"

namespace {
using namespace gpmx;

// Thread 0 of every warp follows its own ring of `hops` dependent loads
// through PM; the rings are disjoint, so nothing is cached twice.
struct pm_chase {
  void operator()(auto& t, pm::pm_span<std::uint64_t> next, std::uint32_t hops, global_span<std::uint64_t> out) const {
    if (t.lane_id() != 0) return;
    auto n = next.bind(t);
    std::uint64_t i = n.size() / t.global_count() * 32 * (t.global_id() / 32);
    for (std::uint32_t h = 0; h < hops; ++h) i = n[i];
    out.bind(t)[t.global_id() / 32] = i;
  }
};

// Every thread reads `iterations` consecutive-by-thread words of PM.
struct pm_stream {
  void operator()(auto& t, pm::pm_span<std::uint32_t> in, std::uint32_t iterations, global_span<std::uint32_t> out) const {
    auto a = in.bind(t);
    const std::uint64_t stride = t.global_count();
    std::uint32_t sum = 0;
    for (std::uint32_t i = 0; i < iterations; ++i) sum += a[i * stride + t.global_id()];
    out.bind(t)[t.global_id()] = sum;
  }
};

// Every thread writes `iterations` consecutive-by-thread words of PM.
struct pm_fill {
  void operator()(auto& t, pm::pm_span<std::uint32_t> dst, std::uint32_t iterations) const {
    auto a = dst.bind(t);
    const std::uint64_t stride = t.global_count();
    for (std::uint32_t i = 0; i < iterations; ++i) a[i * stride + t.global_id()] = i;
  }
};

struct pm_setup {
  scratch_dir dir;
  sim::gpu_model gpu;
  cpu::executor ex;
  pm::pool pool;
  pm::region region;
  // The executor first: it installs the model as the host observer, which
  // learns the pool's addresses when the pool maps them.
  pm_setup(const sim::sim_config& c, std::uint64_t bytes)
      : gpu(c),
        ex({.policy = cpu::schedule::timed, .timing = &gpu}),
        pool(pm::pool::create(dir / "sim.pool", bytes + (1 << 20), {.mode = pm::durability::none})),
        region(pool.create_region("data", bytes)) {}
  double launch_picos() const {
    const sim::launch_record& l = gpu.totals().launches.back();
    return double(l.end - l.start);
  }
};

// Per hop of a ring of `warps` x `hops` 128-byte-apart words, cold.
double chase_picos(const sim::sim_config& c, std::uint32_t warps, std::uint32_t hops) {
  const std::uint64_t words_per_warp = std::uint64_t(hops) * 16;  // 16 words = one 128-byte line per hop
  pm_setup s(c, words_per_warp * warps * 8);
  auto next = s.region.span<std::uint64_t>();
  for (std::uint32_t w = 0; w < warps; ++w)
    for (std::uint32_t h = 0; h < hops; ++h) {
      const std::uint64_t base = std::uint64_t(w) * words_per_warp;
      next.raw()[base + h * 16] = base + (h + 1) % hops * 16;
    }
  std::vector<std::uint64_t> out(warps);
  s.ex.launch({dim3(1), dim3(32 * warps), 0, "pm_chase"}, pm_chase{}, next, hops,
              global_span<std::uint64_t>(out.data(), out.size()));
  return s.launch_picos() / hops;
}

TEST(TimedPmValidation, AColdChaseThroughNearPmMeasuresTheNvmLatency) {
  const sim::sim_config c = sim::named_config("sbrp-table1-near");
  sim::testing::report_within_5_percent(chase_picos(c, 1, 2000), sim::testing::pm_near_ps(c, c.l1.sector), "PM-near chase, ps");
}

TEST(TimedPmValidation, AColdChaseThroughFarPmMeasuresPcieAndNvm) {
  const sim::sim_config c = sim::named_config("sbrp-table1");
  sim::testing::report_within_5_percent(chase_picos(c, 1, 2000), sim::testing::pm_far_ps(c, c.l1.sector), "PM-far chase, ps");
}

// Little's law: K warps each with one load in flight deliver K loads per
// latency until a resource saturates.
TEST(TimedPmValidation, OutstandingLoadsFollowLittlesLaw) {
  sim::sim_config c = sim::named_config("sbrp-table1-near");
  c.sm.count = 1;
  const double latency = sim::testing::pm_near_ps(c, c.l1.sector);
  for (std::uint32_t k : {1u, 2u, 4u, 8u, 16u}) {
    const double per_hop = chase_picos(c, k, 500);  // K loads complete per hop time
    const double loads_per_ns = k / per_hop * 1000.0;
    sim::testing::report_within_5_percent(loads_per_ns, k / latency * 1000.0, "loads per ns");
  }
}

double stream_read_gbs(const sim::sim_config& c) {
  const std::uint32_t block = 1024, iterations = 16;
  const std::uint64_t threads = std::uint64_t(block) * c.sm.count;
  pm_setup s(c, threads * iterations * 4);
  std::vector<std::uint32_t> out(threads);
  s.ex.launch({dim3(c.sm.count), dim3(block), 0, "pm_stream"}, pm_stream{}, s.region.span<std::uint32_t>(),
              iterations, global_span<std::uint32_t>(out.data(), out.size()));
  return double(s.gpu.memory().stats().nvm_read_bytes) / s.launch_picos() * 1000.0;
}

TEST(TimedPmValidation, StreamingPmReadsReachTheNvmBandwidthNearAndThePcieBandwidthFar) {
  const sim::sim_config near = sim::testing::fit_for_sanitizer(sim::named_config("sbrp-table1-near")),
                        far = sim::testing::fit_for_sanitizer(sim::named_config("sbrp-table1"));
  sim::testing::report_within_5_percent(stream_read_gbs(near), near.nvm.read_gbs, "PM-near stream, GB/s");
  sim::testing::report_within_5_percent(stream_read_gbs(far), far.pcie.bandwidth_gbs, "PM-far stream, GB/s");
}

TEST(TimedPmValidation, StreamingPmWritesReachTheNvmWriteBandwidth) {
  const sim::sim_config c = sim::testing::fit_for_sanitizer(sim::named_config("sbrp-table1-near"));
  const std::uint32_t block = 1024, iterations = 64;
  const std::uint64_t threads = std::uint64_t(block) * c.sm.count;
  pm_setup s(c, threads * iterations * 4);  // 7.5 MiB: two and a half L2s
  s.ex.launch({dim3(c.sm.count), dim3(block), 0, "pm_fill"}, pm_fill{}, s.region.span<std::uint32_t>(), iterations);
  // What reaches the NVM are the L2's write-backs, from when the L2 fills
  // on: the rate over the busy middle of the run is the steady state.
  const std::vector<std::uint64_t>& buckets = s.gpu.memory().stats().nvm_bw.buckets();
  ASSERT_GT(buckets.size(), 8u);
  std::uint64_t bytes = 0;
  std::size_t n = 0;
  for (std::size_t i = buckets.size() / 2; i < buckets.size() * 7 / 8; ++i, ++n) bytes += buckets[i];
  const double ns = double(n) * c.stats.bucket_ns;
  sim::testing::report_within_5_percent(double(bytes) / ns, c.nvm.write_gbs, "PM-near write stream (steady state), GB/s");
}

}  // namespace
