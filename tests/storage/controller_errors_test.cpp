// Errors the paper's code ignores: a command past the device's end, an
// unknown opcode, a read the device cannot complete. Each completes with an
// error status; through the cache, the launch fails with a message naming
// the device, the block and the status, and no wrong data is returned.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gpmx/exec/errors.hpp"
#include "gpmx/storage/cache_memory.hpp"
#include "storage/storage_rig.hpp"

namespace {
using namespace storage_test;

struct one_command {
  template <class Ctx>
  void operator()(Ctx& t, queue_pair_view q, nvme_command c, std::uint32_t* status) const {
    *status = await_completion(t, q, submit(t, q, c)).status_code();
  }
};

std::uint32_t run_one(cpu::executor& ex, storage_rig& rig, const nvme_command& c) {
  std::uint32_t status = 99;
  ex.launch({dim3(1), dim3(1), 0, "one_command"}, one_command{}, rig.queues[0], c, &status);
  return status;
}

TEST(NvmeErrors, CommandsTheDeviceCannotServeCompleteWithTheirStatus) {
  cpu::executor ex(parallel());
  storage_rig rig(ex, {.device_bytes = 64 * 512, .queues_per_device = 1});
  alignas(4096) static std::byte buffer[4096];
  EXPECT_EQ(run_one(ex, rig, make_io_command(nvme_opcode::read, 63, 1, buffer)), 0u);
  EXPECT_EQ(run_one(ex, rig, make_io_command(nvme_opcode::read, 64, 1, buffer)), 0x80u);  // past the end
  EXPECT_EQ(run_one(ex, rig, make_io_command(nvme_opcode::read, 60, 8, buffer)), 0x80u);  // runs past it
  EXPECT_EQ(run_one(ex, rig, make_io_command(nvme_opcode::read, 0, 1, nullptr)), 0x02u);  // no buffer
  nvme_command odd = make_flush_command();
  odd.opcode = 0x7f;
  EXPECT_EQ(run_one(ex, rig, odd), 0x01u);
  EXPECT_EQ(run_one(ex, rig, make_flush_command()), 0u);
  // The file shrank under the device: the read comes back short.
  std::filesystem::resize_file(rig.devices[0]->path(), 8 * 512);
  EXPECT_EQ(run_one(ex, rig, make_io_command(nvme_opcode::read, 16, 1, buffer)), 0x04u);
  EXPECT_EQ(rig.controllers[0]->counters().errors, 5u);
  // Each of the seven commands went through every step once, those
  // refused at once (four) as well as those the file system failed.
  const controller_progress p = rig.controllers[0]->progress();
  EXPECT_EQ(p.fetched, 7u);
  EXPECT_EQ(p.finished, 7u);
  EXPECT_EQ(p.posted, 7u);
}

struct sum_array {
  template <class Ctx>
  void operator()(Ctx& t, array_view<std::uint64_t> a, std::uint64_t* out) const {
    out[t.global_id()] = a.read(t, t.global_id() * 512);  // page g
  }
};

TEST(NvmeErrors, AFailedReadFailsTheLaunchNamingDeviceBlockAndStatus) {
  for (bool det : {false, true}) {
    cpu::executor ex(det ? deterministic(3) : parallel());
    storage_rig rig(ex, {.device_bytes = 64 * 4096, .queues_per_device = 1, .deterministic = det});
    page_cache cache({.name = "small", .line_bytes = 4096, .lines = 8});
    const auto range = cache.add_range(64, 0, rig.device_list(), rig.queues);
    std::filesystem::resize_file(rig.devices[0]->path(), 32 * 4096);  // pages 32.. are gone
    std::vector<std::uint64_t> out(64, 0);
    try {
      ex.launch({dim3(2), dim3(32), 0, "sum_array"}, sum_array{}, cache.array<std::uint64_t>(range, 64 * 512),
                out.data());
      ADD_FAILURE() << "a read of a missing page succeeded";
    } catch (const kernel_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("dev0"), std::string::npos) << m;
      EXPECT_NE(m.find("READ"), std::string::npos) << m;
      EXPECT_NE(m.find("data transfer error"), std::string::npos) << m;
      const auto at = m.find("at block ");
      ASSERT_NE(at, std::string::npos) << m;
      EXPECT_GE(std::stoull(m.substr(at + 9)), 256u) << m;  // a page from 32 on: block 256 and up
    }
    // The failing thread also left the command where the host can read it
    // after a launch that ended without a message (a GPU thread traps).
    ASSERT_TRUE(cache.failed());
    const std::string m = cache.describe_failure("the launch's own error");
    EXPECT_NE(m.find("storage device 'dev0': READ"), std::string::npos) << m;
    EXPECT_NE(m.find("the launch's own error"), std::string::npos) << m;
  }
}

// What a GPU launch looks like to the host when a thread traps after a
// failed command: a cuda_error and the thread's record in host-visible
// memory. storage::launch turns that into the command's error.
struct trapping_launcher {
  const page_cache* cache;
  template <class Kernel, class... Args>
  void launch(const launch_config&, Kernel, Args&&...) {
    command_failure& f = *cache->view().failure;
    f.range = 0;
    f.device = 1;
    f.blocks = 8;
    f.slba = 4096;
    f.status = 0x4;  // data transfer error
    f.opcode = std::uint8_t(nvme_opcode::write);
    f.taken = 1;
    throw cuda_error("kernel 'k': cudaDeviceSynchronize failed: unspecified launch failure");
  }
};

TEST(NvmeErrors, AGpuLaunchThatTrappedAfterAFailedCommandIsReportedAsThatCommand) {
  cpu::executor ex(parallel());
  storage_rig rig(ex, {.devices = 2, .device_bytes = 64 * 4096, .queues_per_device = 1});
  page_cache cache({.name = "c", .line_bytes = 4096, .lines = 8});
  cache.add_range(64, 0, rig.device_list(), rig.queues);
  trapping_launcher gpu{&cache};
  try {
    storage::launch(gpu, cache, {dim3(1), dim3(32), 0, "k"}, one_command{});
    ADD_FAILURE() << "the failed launch was not reported";
  } catch (const storage_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("storage device 'dev1': WRITE of 8 block(s) at block 4096"), std::string::npos) << m;
    EXPECT_NE(m.find("data transfer error"), std::string::npos) << m;
    EXPECT_NE(m.find("unspecified launch failure"), std::string::npos) << m;
  }
  // Without a record the launch's own error goes on unchanged.
  cache.clear_failure();
  struct plain_failure {
    void launch(const launch_config&, one_command) { throw cuda_error("out of memory"); }
  } oom;
  EXPECT_THROW(storage::launch(oom, cache, {dim3(1), dim3(1), 0, "k"}, one_command{}), cuda_error);
}

TEST(NvmeErrors, RangesThatDoNotFitTheirDevicesAreRefused) {
  cpu::executor ex(parallel());
  storage_rig rig(ex, {.device_bytes = 16 * 4096, .queues_per_device = 1});
  page_cache cache({.name = "c", .line_bytes = 4096, .lines = 4});
  try {
    cache.add_range(17, 0, rig.device_list(), rig.queues);
    ADD_FAILURE() << "a range larger than its device was accepted";
  } catch (const storage_error& e) {
    EXPECT_NE(std::string(e.what()).find("device 'dev0' has 128 blocks"), std::string::npos) << e.what();
  }
  EXPECT_THROW(page_cache({.line_bytes = 1000}), storage_error);
  EXPECT_THROW(block_device(rig.dir / "missing", "missing"), storage_error);
}

}  // namespace
