// The device model of the timed schedule (device_timing.hpp): its service
// times on their own, and the emulated controller posting completions in
// virtual time under gpmx sim's GPU: a lone command takes the configured
// latency plus one turn of the device, many in flight saturate it at its
// IOPS (Little's law), and the data read is still the file's.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "gpmx/sim/config.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/storage/device_timing.hpp"
#include "gpmx/storage/storage_error.hpp"
#include "storage/storage_rig.hpp"

namespace {
using namespace storage_test;

TEST(DeviceTiming, ALoneCommandTakesLatencyPlusOneTurnAndABurstQueues) {
  const device_timing t{"test", 10.0, 1e6, 0};  // 10 us, 1 us per command
  device_clock d(t);
  EXPECT_EQ(d.serve(0, 512), 11'000'000u);
  // Four more arriving together at 100 us: turns one after another.
  for (vtime k = 1; k <= 4; ++k) EXPECT_EQ(d.serve(100'000'000, 512), 100'000'000 + k * 1'000'000 + 10'000'000);
  // A bandwidth limit makes a large command's turn longer than 1 / IOPS.
  device_clock slow({"bw", 0.0, 1e6, 1e9});
  EXPECT_EQ(slow.serve(0, 4096), 4'096'000u);
  EXPECT_EQ(slow.serve(0, 512), 5'096'000u);
  EXPECT_THROW(device_timing::named("floppy"), storage_error);
  EXPECT_EQ(device_timing::named("optane-p5800x").latency_us, 11.0);
  EXPECT_EQ(device_timing::named("nand-ssd").iops, 7e5);
}

// Thread g reads `reads` scattered 512-byte blocks one after another.
struct timed_reads {
  template <class Ctx>
  void operator()(Ctx& t, const queue_pair_view* queues, std::uint32_t nqueues, std::byte* buffers,
                  std::uint64_t blocks, std::uint32_t reads, std::uint64_t* out) const {
    const std::uint64_t g = t.global_id();
    const queue_pair_view& q = queues[(g / 32) % nqueues];
    std::uint64_t sum = 0;
    for (std::uint32_t k = 0; k < reads; ++k) {
      const std::uint64_t lba = (g * 131 + k * 17) % blocks;
      const auto cmd = make_io_command(nvme_opcode::read, lba, 1, buffers + g * 512);
      if (await_completion(t, q, submit(t, q, cmd)).status_code() != 0) return;
      sum += reinterpret_cast<const std::uint64_t*>(buffers + g * 512)[3];
    }
    out[g] = sum;
  }
};

struct timed_run {
  double seconds = 0;
  vtime device_time = 0;
  std::uint64_t commands = 0;
  controller_progress progress;
  bool data_ok = true;
};

timed_run run_timed(const device_timing& timing, std::uint32_t threads, std::uint32_t reads) {
  sim::gpu_model gpu(sim::named_config("sbrp-table1"));
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  scratch_dir dir;
  const std::uint64_t bytes = 1 << 20;
  write_pattern(dir / "dev", 0, bytes);
  block_device dev(dir / "dev", "dev");
  std::vector<std::unique_ptr<queue_pair_memory>> memory;
  std::vector<queue_pair_view> queues;
  for (std::uint16_t q = 1; q <= 4; ++q) {
    memory.push_back(std::make_unique<queue_pair_memory>(q, queue_options{.depth = 256}));
    queues.push_back(memory.back()->view());
  }
  controller ctl(dev, queues, {.timing = timing, .clock = [&ex] { return ex.virtual_time(); }});
  auto on = ex.attach(ctl);
  std::unique_ptr<std::byte, void (*)(void*)> buffers(static_cast<std::byte*>(std::aligned_alloc(4096, threads * 512)),
                                                      std::free);
  std::vector<std::uint64_t> out(threads, 0);
  const vtime start = ex.virtual_time();
  const std::uint32_t per_block = std::min<std::uint32_t>(threads, 128);
  ex.launch({dim3(threads / per_block), dim3(per_block), 0, "timed_reads"}, timed_reads{}, queues.data(), 4u,
            buffers.get(), bytes / 512, reads, out.data());
  timed_run r;
  r.seconds = double(ex.virtual_time() - start) * 1e-12;
  r.device_time = ctl.counters().device_time;
  r.commands = ctl.counters().commands;
  r.progress = ctl.progress();
  for (std::uint64_t g = 0; g < threads; ++g) {
    std::uint64_t want = 0;
    for (std::uint32_t k = 0; k < reads; ++k) want += pattern(0, ((g * 131 + k * 17) % (bytes / 512)) * 64 + 3);
    r.data_ok &= out[g] == want;
  }
  return r;
}

TEST(DeviceTiming, OneThreadSeesTheDeviceLatencyAndManySaturateItsIops) {
  const device_timing nand = device_timing::named("nand-ssd");
  const double turn = 1.0 / nand.iops, latency = nand.latency_us * 1e-6;
  // One thread, one command at a time: every command finds the device idle.
  const timed_run one = run_timed(nand, 32, 3);
  ASSERT_TRUE(one.data_ok);
  EXPECT_EQ(one.commands, 96u);
  // Held for the model's time, then finished and posted, each once.
  EXPECT_EQ(one.progress.fetched, 96u);
  EXPECT_EQ(one.progress.finished, 96u);
  EXPECT_EQ(one.progress.posted, 96u);
  // 32 lanes of one warp submit together: the device serves them in turn.
  EXPECT_GE(one.seconds, 3 * (latency + turn));
  // Many threads: the device saturates at its IOPS, within 5% of the time
  // Little's law gives (the last command's latency after all turns).
  const std::uint32_t threads = 1024, reads = 3;
  const timed_run many = run_timed(nand, threads, reads);
  ASSERT_TRUE(many.data_ok);
  const double commands = double(threads) * reads;
  const double expect = commands * turn + latency;
  EXPECT_NEAR(many.seconds / expect, 1.0, 0.05) << "simulated " << many.seconds << " s, expected " << expect;
}

}  // namespace
