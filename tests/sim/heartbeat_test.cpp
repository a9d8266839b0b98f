// The GPU model's heartbeat (gpu_model::on_heartbeat): a long run says it
// still advances, from the issuing thread, with the simulated time and the
// warp instructions issued so far.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "kernels/sim_kernels.hpp"

namespace {
using namespace gpmx;

struct beat {
  vtime now;
  std::uint64_t instructions;
};

// 192 warps of 64 loads and a store: 12,480 warp instructions per launch
// (6,144 threads: under ThreadSanitizer's 8,128, which counts fibers).
constexpr std::uint32_t blocks = 24;
constexpr std::uint64_t per_launch = blocks * 8 * 65;
constexpr unsigned launches = 12;  // 149,760: past two checks
std::vector<beat> beats_over(std::chrono::steady_clock::duration every,
                             std::uint64_t* issued) {
  sim::gpu_model gpu(sim::named_config("sbrp-table1"));
  std::vector<beat> beats;
  gpu.on_heartbeat(every, [&](vtime now, std::uint64_t n) { beats.push_back({now, n}); });
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  kernel_vector<std::uint32_t> in(blocks * 256 * 64, 1), out(blocks * 256, 0);
  for (unsigned l = 0; l < launches; ++l)
    ex.launch({dim3(blocks), dim3(256), 0, "stream"}, sim_kernels::stream_sum{},
              global_span<const std::uint32_t>(in.data(), in.size()), 64u,
              global_span<std::uint32_t>(out.data(), out.size()));
  *issued = gpu.totals().instructions();
  return beats;
}

TEST(SimHeartbeat, EveryCheckBeatsWhenTheIntervalIsZero) {
  std::uint64_t issued = 0;
  const auto beats = beats_over(std::chrono::steady_clock::duration::zero(), &issued);
  ASSERT_EQ(issued, launches * per_launch);
  // Checked every 65,536 instructions: at 65,536 and 131,072.
  ASSERT_EQ(beats.size(), 2u);
  EXPECT_EQ(beats[0].instructions, 65536u);
  EXPECT_EQ(beats[1].instructions, 131072u);
  EXPECT_GT(beats[1].now, beats[0].now) << "the simulated time did not advance between beats";
}

TEST(SimHeartbeat, NoBeatBeforeTheInterval) {
  std::uint64_t issued = 0;
  EXPECT_TRUE(beats_over(std::chrono::hours(1), &issued).empty());
  EXPECT_EQ(issued, launches * per_launch);
}

}  // namespace
