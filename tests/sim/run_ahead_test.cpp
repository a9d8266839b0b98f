// Run-ahead (sched.run_ahead) on the GPU model: a lane's plain loads are
// performed before its warp issues them (and it goes on past its stores),
// which changes the simulator's speed and nothing it reports for a kernel
// whose loads do not race; a passenger that sees accesses gets them in
// virtual-time order, without it; crash images keep stores one at a time.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/durability_tracker.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "kernels/sim_kernels.hpp"
#include "sim/sim_test_util.hpp"

namespace {
using namespace gpmx;

struct stream_result {
  std::uint64_t end_ps, sectors, l1_misses, instructions;
  std::vector<std::uint32_t> out;
  bool operator==(const stream_result&) const = default;
};

// Runs `kernel` on `blocks` blocks of `threads` threads over an input of
// `words_per_thread` words a thread (filled from `seed`) into one word a
// thread, with run-ahead `run_ahead`; `args` go between the two spans.
template <class Kernel, class... Args>
stream_result timed_run(std::uint32_t run_ahead, std::uint32_t blocks, std::uint32_t threads,
                        std::uint32_t words_per_thread, std::uint32_t seed, Kernel kernel, Args... args) {
  const sim::canonical_kernel_memory placement;
  sim::sim_config c = sim::named_config("sbrp-table1");
  c.sched.run_ahead = run_ahead;
  sim::gpu_model gpu(c);
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  kernel_vector<std::uint32_t> in(std::size_t(blocks) * threads * words_per_thread, 1),
      out(std::size_t(blocks) * threads, 0);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::uint32_t(i * seed);
  ex.launch({dim3(blocks), dim3(threads), 0, "run_ahead_test"}, kernel,
            global_span<const std::uint32_t>(in.data(), in.size()), args...,
            global_span<std::uint32_t>(out.data(), out.size()));
  const auto& s = gpu.memory().stats();
  return {std::uint64_t(gpu.totals().end), s.sectors_requested, s.l1_total().misses, gpu.totals().instructions(),
          std::vector<std::uint32_t>(out.begin(), out.end())};
}

stream_result stream(std::uint32_t run_ahead) {
  return timed_run(run_ahead, 64 / sim::testing::sanitizer_shrink, 256, 24, 2654435761u, sim_kernels::stream_sum{},
                   24u);
}

TEST(SimRunAhead, AStreamingKernelReportsTheSameWithAndWithout) {
  const stream_result issued = stream(0);
  EXPECT_GT(issued.instructions, 0u);
  for (std::uint32_t n : {1u, 5u, 16u, sim::max_run_ahead}) EXPECT_EQ(stream(n), issued) << "run_ahead " << n;
}

// Record rows of every shape: in the first 16 rounds only whole warps at
// consecutive words, at a stride of two words and at one word, some after
// declared work (rows a warp keeps as summaries, restored when that work is
// issued); from then on also scattered words and lanes split over two
// loads on different lines (rows kept whole); a barrier; stores; and a
// last warp of 16 lanes (blocks of 48 threads).
struct mixed_rows {
  void operator()(auto& t, global_span<const std::uint32_t> in, global_span<std::uint32_t> out) const {
    auto a = in.bind(t);
    const std::uint64_t id = t.global_id(), n = t.global_count();
    const std::uint64_t size = a.size();
    std::uint32_t sum = 0;
    for (std::uint32_t i = 0; i < 40; ++i) {
      sum += a[(i * n + id) % size];
      if (i % 4 == 1) t.work(2);
      sum += a[(2 * (i * n + id)) % size];
      sum += a[i % size];
      if (i >= 16) {
        sum += a[((i * 2654435761u) ^ (id * 40503u)) % size];
        if (t.lane_id() % 3 == 0) {
          t.work(3);
          sum += a[(id * 7 + i) % size];
        } else {
          sum ^= a[(id + 5 * i) % size];
        }
      }
      if (i == 20) t.syncthreads();
    }
    out.bind(t)[id] = sum;
  }
};

stream_result mixed(std::uint32_t run_ahead) {
  return timed_run(run_ahead, 40 / sim::testing::sanitizer_shrink, 48, 16, 2246822519u, mixed_rows{});
}

TEST(SimRunAhead, RowsKeptAsSummariesReportTheSameAsRowsKeptWhole) {
  // A warp's rows go back to a pool as summaries when every lane's record
  // in them is one operation at a fixed stride; any other row keeps them.
  const stream_result issued = mixed(0);
  EXPECT_GT(issued.instructions, 0u);
  for (std::uint32_t n : {1u, 3u, 16u, sim::max_run_ahead}) EXPECT_EQ(mixed(n), issued) << "run_ahead " << n;
}

struct sees_pm final : observer {
  std::uint8_t observed_spaces() const override { return space_bit(mem_space::pm); }
};
struct sees_nothing final : observer {
  std::uint8_t observed_spaces() const override { return 0; }
};

TEST(SimRunAhead, APassengerThatSeesAccessesTurnsItOff) {
  sim::gpu_model gpu(sim::sim_config{});
  EXPECT_EQ(gpu.machine().run_ahead, sim::sim_config{}.sched.run_ahead);
  sees_nothing quiet;
  gpu.set_passenger(&quiet);
  EXPECT_EQ(gpu.machine().run_ahead, sim::sim_config{}.sched.run_ahead);
  sees_pm recorder;
  gpu.set_passenger(&recorder);
  EXPECT_EQ(gpu.machine().run_ahead, 0u);
}

TEST(SimRunAhead, StoresRunAheadUnlessTheModelFollowsTheirBytes) {
  const sim::sim_config c;
  sim::gpu_model gpu(c);
  EXPECT_TRUE(gpu.machine().run_ahead_stores);
  sim::durability_tracker tracker(c.l1.line, c.l1.sector);
  gpu.track_durability(&tracker);  // crash images stage each store with its lane until its issue
  EXPECT_FALSE(gpu.machine().run_ahead_stores);
  EXPECT_EQ(gpu.machine().run_ahead, c.sched.run_ahead) << "loads still run ahead";
}

}  // namespace
