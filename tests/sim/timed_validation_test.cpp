// The timed mode end to end, on microbenchmarks whose answers are known
// from the configuration: kernels run under schedule::timed against the
// GPU model, and what they measure in virtual time must match what the
// configuration says (within 5%, the bar), before any figure is
// reported from the simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <new>
#include <numeric>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "kernels/sim_kernels.hpp"
#include "sim/sim_test_util.hpp"

namespace {
using namespace gpmx;

// A page-aligned array: the same run gives the same simulated addresses
// (the model numbers pages by first touch), hence the same times, only if
// buffers sit at the same offset within their pages.
template <class T>
class page_buffer {
 public:
  explicit page_buffer(std::size_t n, T fill = T{})
      : n_(n), p_(static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(4096)))) {
    std::fill(p_, p_ + n, fill);
  }
  ~page_buffer() { ::operator delete(p_, std::align_val_t(4096)); }
  page_buffer(const page_buffer&) = delete;
  page_buffer& operator=(const page_buffer&) = delete;
  T* data() { return p_; }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) { return p_[i]; }

 private:
  std::size_t n_;
  T* p_;
};

using sim_kernels::stream_sum;

// One thread follows a chain of `hops` dependent loads: each load's address
// comes from the one before, so the time per hop is the load's latency.
struct chase_chain {
  void operator()(auto& t, global_span<const std::uint64_t> next, std::uint32_t hops,
                  global_span<std::uint64_t> out) const {
    if (t.global_id() != 0) return;
    auto n = next.bind(t);
    std::uint64_t i = 0;
    for (std::uint32_t h = 0; h < hops; ++h) i = n[i];
    out.bind(t)[0] = i;
  }
};

// A ring through `elements` words, `stride_words` apart.
void make_ring(page_buffer<std::uint64_t>& v, std::uint64_t elements, std::uint64_t stride_words) {
  for (std::uint64_t e = 0; e < elements; ++e) v[e * stride_words] = ((e + 1) % elements) * stride_words;
}

struct chase_result {
  double picos_per_hop;
  sim::memory_stats stats;
};

// Runs the chase twice over the same ring in one model: the first pass
// warms the caches (or not, if the ring is larger), the second is timed.
chase_result chase(const sim::sim_config& c, std::uint64_t elements, std::uint64_t stride_words, bool warm) {
  sim::gpu_model gpu(c);
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  page_buffer<std::uint64_t> r(elements * stride_words);
  make_ring(r, elements, stride_words);
  page_buffer<std::uint64_t> out(1);
  const launch_config cfg{dim3(1), dim3(32), 0, "chase"};
  const auto hops = std::uint32_t(elements);
  if (warm)
    ex.launch(cfg, chase_chain{}, global_span<const std::uint64_t>(r.data(), r.size()), hops,
              global_span<std::uint64_t>(out.data(), 1));
  ex.launch(cfg, chase_chain{}, global_span<const std::uint64_t>(r.data(), r.size()), hops,
            global_span<std::uint64_t>(out.data(), 1));
  const sim::launch_record& l = gpu.totals().launches.back();
  return {double(l.end - l.start) / hops, gpu.memory().stats()};
}

TEST(TimedValidation, AChaseThatFitsInTheL1MeasuresTheL1Latency) {
  const sim::sim_config c = sim::named_config("sbrp-table1");
  const chase_result r = chase(c, 256, 16, true);  // 256 lines of 128 bytes: 32 KiB
  sim::testing::report_within_5_percent(r.picos_per_hop, sim::testing::l1_hit_ps(c), "L1 chase, ps");
}

TEST(TimedValidation, AChaseThatFitsInTheL2MeasuresTheL2Latency) {
  const sim::sim_config c = sim::named_config("sbrp-table1");
  const chase_result r = chase(c, 4096, 16, true);  // 512 KiB: past the L1, inside the L2
  sim::testing::report_within_5_percent(r.picos_per_hop, sim::testing::l2_hit_ps(c, c.l1.sector), "L2 chase, ps");
}

TEST(TimedValidation, AColdChaseMeasuresTheGddrLatency) {
  const sim::sim_config c = sim::named_config("sbrp-table1");
  const chase_result r = chase(c, 4096, 16, false);
  sim::testing::report_within_5_percent(r.picos_per_hop, sim::testing::gddr_ps(c, c.l1.sector), "GDDR chase, ps");
}

TEST(TimedValidation, StreamingLoadsReachTheGddrBandwidth) {
  const sim::sim_config c = sim::testing::fit_for_sanitizer(sim::named_config("sbrp-table1"));
  sim::gpu_model gpu(c);
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  const std::uint32_t block = 1024, blocks = c.sm.count, iterations = 48;
  const std::uint64_t threads = std::uint64_t(block) * blocks;
  page_buffer<std::uint32_t> in(threads * iterations, 1), out(threads);
  ex.launch({dim3(blocks), dim3(block), 0, "stream"}, stream_sum{},
            global_span<const std::uint32_t>(in.data(), in.size()), iterations,
            global_span<std::uint32_t>(out.data(), out.size()));
  EXPECT_EQ(out[5], iterations);
  const sim::launch_record& l = gpu.totals().launches.back();
  const double bytes = double(gpu.memory().stats().gddr_read_bytes);
  EXPECT_EQ(bytes, double(in.size() * sizeof(std::uint32_t)));
  const double gbs = bytes / (double(l.end - l.start) / 1e12) / 1e9;
  sim::testing::report_within_5_percent(gbs, c.gddr.bandwidth_gbs, "GDDR stream, GB/s");
}

// Lane i reads word i * stride_words.
struct pattern {
  void operator()(auto& t, global_span<const std::uint32_t> in, std::uint32_t stride_words,
                  global_span<std::uint32_t> out) const {
    out.bind(t)[t.lane_id()] = in.bind(t)[t.lane_id() * stride_words];
  }
};

TEST(TimedValidation, WarpAccessPatternsMakeTheExpectedSectors) {
  auto sectors_of = [](std::uint32_t stride_words) {
    sim::gpu_model gpu(sim::named_config("sbrp-table1"));
    cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
    page_buffer<std::uint32_t> in(32 * 64 + 64, 1), out(32);
    ex.launch({dim3(1), dim3(32), 0, "pattern"}, pattern{}, global_span<const std::uint32_t>(in.data(), in.size()),
              stride_words, global_span<std::uint32_t>(out.data(), 32));
    // The store of out (consecutive words) adds its own 4 sectors.
    return gpu.memory().stats().sectors_requested - 4;
  };
  EXPECT_EQ(sectors_of(1), 4u);   // coalesced: one 128-byte line
  EXPECT_EQ(sectors_of(8), 32u);  // 32-byte stride: one sector per lane
  EXPECT_EQ(sectors_of(32), 32u); // 128-byte stride: one line per lane
}

// Loads that hit or miss by the warp's rank, with compute between them:
// which warp issues when decides what is in the L1 and what waits.
struct mixed_reuse {
  void operator()(auto& t, global_span<const std::uint32_t> in, std::uint32_t iterations,
                  global_span<std::uint32_t> out) const {
    auto a = in.bind(t);
    std::uint32_t sum = 0;
    for (std::uint32_t i = 0; i < iterations; ++i) {
      sum += a[(i * 37 + t.warp_id() * 1024 + t.lane_id()) % a.size()];
      t.work(1 + (i + t.warp_id()) % 5 * 4);
    }
    out.bind(t)[t.global_id()] = sum;
  }
};

// One thread's chain of atomic adds on a word of shared memory (or, for
// comparison, of device memory). A GPU serves shared atomics in the SM, so
// each takes the shared latency; a device atomic is an L2 round trip.
struct atomic_chain {
  void operator()(auto& t, std::uint32_t hops, bool shared, global_span<std::uint32_t> dev) const {
    if (t.thread_rank() != 0) return;
    std::uint32_t* word = shared ? t.template dynamic_shared<std::uint32_t>() : dev.raw();
    if (shared) *word = 0;
    std::uint32_t v = 0;
    for (std::uint32_t h = 0; h < hops; ++h) v += t.atomic_add(word, 1u, memory_order::relaxed, scope::block);
    if (!shared) return;
    dev.bind(t)[0] = v;
  }
};

double picos_per_atomic(const sim::sim_config& c, bool shared) {
  sim::gpu_model gpu(c);
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  page_buffer<std::uint32_t> dev(1024, 0);
  const std::uint32_t hops = 2000;  // the launch's end (its one dirty line drained) is then ~1%
  const launch_config cfg{dim3(1), dim3(32), 4096, "atomics"};
  ex.launch(cfg, atomic_chain{}, hops / 10, shared, global_span<std::uint32_t>(dev.data(), dev.size()));
  ex.launch(cfg, atomic_chain{}, hops, shared, global_span<std::uint32_t>(dev.data(), dev.size()));
  const sim::launch_record& l = gpu.totals().launches.back();
  return double(l.end - l.start) / hops;
}

TEST(TimedValidation, SharedMemoryAtomicsAreServedInTheSm) {
  const sim::sim_config c = sim::named_config("sbrp-table1");
  const double shared = picos_per_atomic(c, true), device = picos_per_atomic(c, false);
  sim::testing::report_within_5_percent(shared, sim::testing::cycles_ps(c, c.shared.latency), "shared atomic, ps");
  EXPECT_GT(device, 2 * shared) << "a device-scope atomic goes to the L2";
}

TEST(TimedValidation, SameRunSameCyclesAndTheWarpSchedulerMatters) {
  auto cycles = [](const char* config) {
    sim::gpu_model gpu(sim::testing::fit_for_sanitizer(sim::named_config(config)));
    cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
    const std::uint32_t block = 512, blocks = 60 / sim::testing::sanitizer_shrink, iterations = 24;
    page_buffer<std::uint32_t> in(64 * 1024, 1), out(block * blocks);
    ex.launch({dim3(blocks), dim3(block), 0, "mixed"}, mixed_reuse{},
              global_span<const std::uint32_t>(in.data(), in.size()), iterations,
              global_span<std::uint32_t>(out.data(), out.size()));
    return gpu.totals().end;
  };
  EXPECT_EQ(cycles("sbrp-table1"), cycles("sbrp-table1"));
  EXPECT_NE(cycles("sbrp-table1"), cycles("sbrp-table1-lrr"));
}

}  // namespace
