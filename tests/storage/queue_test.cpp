// BaM's queue protocol between kernel threads and the emulated controller:
// every command completes exactly once, with the data of the device, also
// when the queue wraps many times, its ticket counter passes 2^32, and the
// controller posts completions out of order; under the parallel schedule
// and the deterministic one with several seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <memory_resource>
#include <vector>

#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/storage/queue_memory.hpp"
#include "gpmx/storage/queue_pair.hpp"
#include "gpmx/storage/storage_error.hpp"
#include "gpmx/support/elapsed.hpp"
#include "storage/storage_rig.hpp"

namespace {
using namespace storage_test;

// Thread g reads block g of the device into its own 512-byte buffer and
// records the status and command id it got back.
struct read_own_block {
  template <class Ctx>
  void operator()(Ctx& t, const queue_pair_view* queues, unsigned nqueues, std::uint64_t* buffers,
                  std::uint32_t* status, std::uint32_t* cids) const {
    const std::uint64_t g = t.global_id();
    const queue_pair_view& q = queues[g % nqueues];
    const std::uint16_t cid = submit(t, q, make_io_command(nvme_opcode::read, g, 1, buffers + g * 64));
    const nvme_completion done = await_completion(t, q, cid);
    status[g] = done.status_code();
    cids[g] = std::uint32_t(done.cid == cid);
  }
};

void read_blocks(cpu::executor_options eo, rig_options ro, unsigned blocks, unsigned threads) {
  cpu::executor ex(eo);
  storage_rig rig(ex, ro);
  const unsigned n = blocks * threads;
  // O_DIRECT wants block-aligned buffers, as a real controller's DMA does.
  std::unique_ptr<std::uint64_t[], void (*)(void*)> memory(
      static_cast<std::uint64_t*>(std::aligned_alloc(4096, std::size_t(n) * 512)), std::free);
  std::uint64_t* buffers = memory.get();
  std::fill_n(buffers, std::size_t(n) * 64, 0);
  std::vector<std::uint32_t> status(n, 99), same_cid(n, 0);
  const auto t0 = std::chrono::steady_clock::now();
  ex.launch({dim3(blocks), dim3(threads), 0, "read_own_block"}, read_own_block{}, rig.queues.data(),
            unsigned(rig.queues.size()), buffers, status.data(), same_cid.data());
  const double wall_ns = seconds_since(t0) * 1e9;
  for (unsigned g = 0; g < n; ++g) {
    ASSERT_EQ(status[g], 0u) << "thread " << g;
    ASSERT_EQ(same_cid[g], 1u) << "thread " << g;
    for (unsigned w = 0; w < 64; ++w) ASSERT_EQ(buffers[std::size_t(g) * 64 + w], pattern(0, g * 64 + w)) << g;
  }
  // Exactly one command per thread reached the device.
  EXPECT_EQ(rig.controllers[0]->counters().commands, n);
  EXPECT_EQ(rig.controllers[0]->counters().reads, n);
  // Each command's time in io_uring lies inside the launch: their sum is
  // positive and at most every command in flight for the whole launch.
  EXPECT_GT(rig.controllers[0]->counters().io_ns, 0u);
  EXPECT_LE(double(rig.controllers[0]->counters().io_ns), n * wall_ns);
  for (const queue_pair_view& q : rig.queues) {
    EXPECT_EQ(*q.sq_tail, *q.ticket) << "every ticket's command was made visible";
    EXPECT_EQ(*q.sq_head, *q.sq_tail) << "the device fetched everything";
  }
}

TEST(NvmeQueues, EveryCommandCompletesOnceParallel) {
  read_blocks(parallel(), {.queues_per_device = 2, .queue = {.depth = 8}}, 8, 64);
}

TEST(NvmeQueues, EveryCommandCompletesOnceDeterministic) {
  for (std::uint64_t seed : {1u, 2u, 3u})
    read_blocks(deterministic(seed), {.queues_per_device = 1, .queue = {.depth = 4}, .deterministic = true, .seed = seed},
                4, 32);
}

TEST(NvmeQueues, TicketsPast32BitsKeepWorking) {
  const std::uint64_t near = (1ull << 32) - 8 * 3;  // a multiple of the depth, three laps before 2^32
  read_blocks(parallel(), {.queues_per_device = 1, .queue = {.depth = 8, .first_ticket = near}}, 4, 32);
  read_blocks(deterministic(5),
              {.queues_per_device = 1, .queue = {.depth = 8, .first_ticket = near}, .deterministic = true, .seed = 5}, 2,
              32);
}

TEST(NvmeQueues, OneSlotDeepQueueStillServesEveryone) {
  // depth 2: one command in flight at a time, the tightest the protocol allows.
  read_blocks(parallel(), {.queues_per_device = 1, .queue = {.depth = 2}}, 2, 32);
  read_blocks(deterministic(9), {.queues_per_device = 1, .queue = {.depth = 2}, .deterministic = true, .seed = 9}, 1, 32);
}

// Beside a GPU the queues are pinned host memory (host_visible_memory set
// apart): the doorbells and completions the controller shares take system
// scope; elsewhere device scope, which the timed mode times inside the GPU.
TEST(NvmeQueues, QueuesApartFromKernelMemoryTalkToTheControllerAtSystemScope) {
  EXPECT_EQ(queue_pair_memory(1, {.depth = 8}).view().host_scope, scope::device);
  std::pmr::unsynchronized_pool_resource pinned_stand_in;
  set_host_visible_memory(&pinned_stand_in);
  {
    const queue_pair_memory q(2, {.depth = 8});
    set_host_visible_memory(nullptr);
    EXPECT_EQ(q.view().host_scope, scope::system);
  }
  EXPECT_EQ(queue_pair_memory(3, {.depth = 8}).view().host_scope, scope::device);
}

TEST(NvmeQueues, BadQueueSettingsAreRefusedByName) {
  EXPECT_THROW(queue_pair_memory(1, {.depth = 1}), storage_error);
  EXPECT_THROW(queue_pair_memory(1, {.depth = 70000}), storage_error);
  try {
    queue_pair_memory(7, {.depth = 8, .first_ticket = 12});
    ADD_FAILURE() << "accepted a first ticket that is not a multiple of the depth";
  } catch (const storage_error& e) {
    EXPECT_NE(std::string(e.what()).find("queue pair 7"), std::string::npos) << e.what();
  }
}

}  // namespace
