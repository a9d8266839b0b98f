#include <gtest/gtest.h>

#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "kernels/exec_kernels.hpp"
#include "reference_warp.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::test;

constexpr std::uint32_t unset = 0xdeadbeef;

std::uint32_t value_of(std::uint32_t warp, unsigned lane) { return lane * 7u + 3u + warp * 1000u; }

// Expected output of test_kernels::warp_ops for one lane; entries whose
// source lane lies outside the mask (undefined in CUDA) are left unset.
std::vector<std::uint32_t> expected(std::uint32_t mask, int width, std::uint32_t warp, unsigned lane) {
  std::vector<std::uint32_t> o(10, unset);
  if (!(mask >> lane & 1u)) return o;
  auto in = [&](unsigned l) { return (mask >> l & 1u) != 0; };
  std::uint32_t ballot = 0, match = 0;
  bool any = false, all = true;
  for (unsigned l = 0; l < 32; ++l) {
    if (!in(l)) continue;
    if (l % 3 == 0) ballot |= 1u << l;
    if (l % 4 == lane % 4) match |= 1u << l;
    any |= l == 5;
    all &= l < 30;
  }
  o[0] = ballot;
  o[1] = any;
  o[2] = all;
  o[3] = match;
  auto from = [&](unsigned src) { return in(src) ? value_of(warp, src) : unset; };
  o[4] = from(ref_shfl_idx(lane, int((lane * 5u + 1u) % 32u), width));
  o[5] = from(ref_shfl_up(lane, 3, width));
  o[6] = from(ref_shfl_down(lane, 2, width));
  o[7] = from(ref_shfl_xor(lane, 9, width));
  o[8] = from(ref_shfl_down(lane, 1, width));
  o[9] = from(ref_shfl_xor(lane, 1, width));
  return o;
}

void check_warp_ops(cpu::executor& ex, std::uint32_t block, std::uint32_t mask, int width) {
  const std::uint32_t blocks = 3;
  std::vector<std::uint32_t> out(std::size_t(blocks) * block * 10, unset);
  ex.launch({dim3(blocks), dim3(block), 0, "warp_ops"}, test_kernels::warp_ops{}, mask, width, out.data());
  for (std::uint64_t g = 0; g < std::uint64_t(blocks) * block; ++g) {
    const std::uint32_t rank = std::uint32_t(g % block);
    const auto want = expected(mask, width, rank / 32, rank % 32);
    for (int k = 0; k < 10; ++k) {
      if (want[std::size_t(k)] == unset && (mask >> (rank % 32) & 1u)) continue;  // undefined in CUDA
      ASSERT_EQ(out[g * 10 + std::uint64_t(k)], want[std::size_t(k)])
          << "mask " << std::hex << mask << std::dec << " width " << width << " thread " << g
          << " output " << k;
    }
  }
}

TEST(WarpOps, FullAndPartialMasksAllWidths) {
  cpu::executor ex({.workers = 2});
  for (std::uint32_t mask : {0xffffffffu, 0x0000ffffu, 0xaaaaaaaau, 0x80000001u, 0x12345678u, 0x00000001u})
    for (int width : {32, 16, 8, 4, 2, 1}) check_warp_ops(ex, 64, mask, width);
}

TEST(WarpOps, PartialLastWarp) {
  cpu::executor ex({.workers = 1});
  for (std::uint32_t mask : {0x0000ffffu, 0x0000f0f0u}) check_warp_ops(ex, 48, mask, 32);
}

TEST(WarpOps, AfterLanesExitActivemaskNamesTheRest) {
  cpu::executor ex({.workers = 2});
  for (std::uint32_t live : {32u, 20u, 7u, 1u}) {
    std::vector<std::uint32_t> out(64 * 3, unset);
    ex.launch({dim3(1), dim3(64)}, test_kernels::warp_after_exit{}, live, out.data());
    const std::uint32_t m = live == 32 ? 0xffffffffu : (1u << live) - 1u;
    for (std::uint32_t g = 0; g < 64; ++g) {
      const std::uint32_t lane = g % 32;
      if (lane >= live) {
        EXPECT_EQ(out[g * 3], unset);
        continue;
      }
      EXPECT_EQ(out[g * 3 + 0], m) << "live " << live << " thread " << g;
      EXPECT_EQ(out[g * 3 + 1], 0xaaaaaaaau & m);
      EXPECT_EQ(out[g * 3 + 2], lane + 1 < live ? lane + 1 : lane);
    }
  }
}

// Lanes leave a collective together and run on, one after another, to an
// activemask(): each must wait for its siblings that were woken but have
// not run yet, and get the whole warp.
struct activemask_after_collective {
  template <class Ctx>
  void operator()(Ctx& t, std::uint32_t* out) const {
    const std::uint32_t b = t.ballot(0xffffffffu, 1);
    out[t.global_id()] = t.activemask() & b;
  }
};

TEST(WarpOps, ActivemaskAfterACollectiveWaitsForTheWokenLanes) {
  for (auto opts : {cpu::executor_options{.workers = 2},
                    cpu::executor_options{.policy = cpu::schedule::deterministic, .seed = 3}}) {
    cpu::executor ex(opts);
    std::vector<std::uint32_t> out(128, 0);
    ex.launch({dim3(2), dim3(64)}, activemask_after_collective{}, out.data());
    for (std::uint32_t g = 0; g < out.size(); ++g) EXPECT_EQ(out[g], 0xffffffffu) << "thread " << g;
  }
}

TEST(WarpOps, ShuffleReductionSumsAWarp) {
  cpu::executor ex({.workers = 2});
  std::vector<std::uint32_t> in(4096);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::uint32_t(i % 977);
  std::vector<std::uint64_t> out(in.size() / 32, 0), want(in.size() / 32, 0);
  for (std::size_t i = 0; i < in.size(); ++i) want[i / 32] += in[i];
  ex.launch({dim3(16), dim3(256)}, test_kernels::warp_sum{}, in.data(), out.data());
  EXPECT_EQ(out, want);
}

std::string usage_error(cpu::executor& ex, auto kernel, std::uint32_t threads = 32) {
  try {
    ex.launch({dim3(1), dim3(threads), 0, "misuse"}, kernel);
  } catch (const kernel_error& e) {
    try {
      std::rethrow_exception(e.cause());
    } catch (const kernel_usage_error&) {
      return e.what();
    } catch (...) {
      return std::string("wrong cause: ") + e.what();
    }
  }
  return "no error";
}

TEST(WarpOps, MisuseIsReportedNotHung) {
  cpu::executor ex({.workers = 1});
  EXPECT_NE(usage_error(ex, [](auto& t) { t.ballot(0x1u << ((t.lane_id() + 1) % 32), 1); })
                .find("not in the mask"),
            std::string::npos);
  EXPECT_NE(usage_error(ex, [](auto& t) {
              if (t.lane_id() == 3) return;
              t.ballot(0xffffffffu, 1);
            }).find("lane 3"),
            std::string::npos);
  EXPECT_NE(usage_error(ex, [](auto& t) {
              if (t.lane_id() == 0) t.ballot(0xffffffffu, 1);
              else t.any(0xffffffffu, 1);
            }).find("with the same mask"),
            std::string::npos);
  EXPECT_NE(usage_error(ex, [](auto& t) { t.shfl(0xffffffffu, 1, 0, 3); }).find("width 3"),
            std::string::npos);
  // A full mask in a 20-thread block names lanes that do not exist.
  EXPECT_NE(usage_error(ex, [](auto& t) { t.syncwarp(0xffffffffu); }, 20).find("does not exist"),
            std::string::npos);
}

}  // namespace
